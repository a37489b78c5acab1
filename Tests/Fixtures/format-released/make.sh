#!/bin/sh
# Writes this fixture with the habitto binary released before this version (commit 4039ae4:
# journal records tagged 1/2/5/9 in whole units, a version 4 snapshot whose days hold each
# device's share, backups and batches of version 1). Run from this folder:
#   ./make.sh /path/to/released/habitto
set -eu
H="$1"
rm -rf home
export HABITTO_HOME="$PWD/home"
at() { now="$1"; shift; HABITTO_NOW="$now" "$H" "$@" > /dev/null; }
at 2026-11-18T08:00:00 add "Drink water" --goal 8 --unit glasses --start 2026-11-18
at 2026-11-18T08:00:01 add Coffee --limit --goal 2 --start 2026-11-18
at 2026-11-18T08:00:02 add Read --start 2026-11-18
at 2026-11-18T20:00:00 check "Drink water" --amount 8
at 2026-11-18T20:00:01 check Read --difficulty 2 --note "two chapters"
at 2026-11-19T20:00:00 check "Drink water" --amount 3
at 2026-11-19T20:00:01 check Coffee --amount 3
at 2026-11-19T20:00:02 uncheck "Drink water"
at 2026-11-19T20:00:03 skip Read
# That version writes a snapshot every 1,000 records: 500 check-ins taken back again
# (which change nothing) make it write one, then one more check-in only the journal holds.
i=0
while [ $i -lt 500 ]; do
  at 2026-11-20T08:00:00 check Coffee --amount 1 --date 2026-11-18
  at 2026-11-20T08:00:00 uncheck Coffee --amount 1 --date 2026-11-18
  i=$((i + 1))
done
at 2026-11-20T09:00:01 check "Drink water" --amount 2
rm -f home/lock
HABITTO_NOW=2026-11-20T10:00:00 "$H" export > expected-export.json
rm -f home/lock
