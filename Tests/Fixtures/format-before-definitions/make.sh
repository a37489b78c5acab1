#!/bin/sh
# Writes this fixture with the habitto binary of the version before definition histories
# (commit b4e88e1: goal, unit, kind and schedule held one value for every day, and an edit
# changed every day). Journal, snapshot and a backup, with what that version printed for
# them (expected-*.json). Run from this folder:
#   ./make.sh /path/to/that/habitto
set -eu
H="$1"
rm -rf home expected-*.json
export HABITTO_HOME="$PWD/home"
at() { now="$1"; shift; HABITTO_NOW="$now" "$H" "$@" > /dev/null; }
at 2026-11-01T08:00:00 add Water --goal 8 --unit glasses --start 2026-11-01
at 2026-11-01T08:00:01 add Read --schedule weekdays --start 2026-11-01
at 2026-11-01T08:00:02 add Coffee --limit --goal 2 --unit cups --start 2026-11-01
at 2026-11-01T08:00:03 add Gym --schedule 3/week --start 2026-11-01
d=1
while [ $d -le 19 ]; do
  day=$(printf '2026-11-%02d' $d)
  at "${day}T20:00:00" check Water --amount 9 --date "$day"
  case $d in 6|7|13|14) ;; *) at "${day}T20:00:01" check Read --date "$day" ;; esac
  case $d in 3|5|8|10|12|15|17) at "${day}T20:00:02" check Gym --date "$day" ;; esac
  case $d in 4) at "${day}T20:00:03" check Coffee --amount 3 --date "$day" ;; *) at "${day}T20:00:03" check Coffee --amount 1 --date "$day" ;; esac
  d=$((d + 1))
done
at 2026-11-12T09:00:00 skip Read --date 2026-11-11
at 2026-11-12T09:00:01 rate Water 3 --date 2026-11-12
# That version writes a snapshot every 1,000 records: 500 check-ins taken back again
# (which change nothing) make it write one; what follows only the journal holds.
i=0
while [ $i -lt 500 ]; do
  at 2026-11-19T20:30:00 check Coffee --amount 1 --date 2026-11-02
  at 2026-11-19T20:30:00 uncheck Coffee --amount 1 --date 2026-11-02
  i=$((i + 1))
done
# An edit as that version made it: the new goal holds on every day, the past included.
at 2026-11-19T21:00:00 edit Coffee --goal 3
at 2026-11-19T21:00:01 backup create --note fixture
rm -f home/lock
HABITTO_NOW=2026-11-20T09:00:00 "$H" stats --json > expected-stats.json
for h in Water Read Coffee Gym; do
  HABITTO_NOW=2026-11-20T09:00:00 "$H" show "$h" --json > "expected-show-$h.json"
done
HABITTO_NOW=2026-11-20T09:00:00 "$H" export > expected-export.json
rm -f home/lock
