#!/bin/sh
# Writes this fixture with a habitto binary from before decimal amounts (commit 829a857,
# the whole-unit formats: journal records tagged 1/2/5/9, snapshot version 5, batch
# version 1). Run from this folder: ./make.sh /path/to/old/habitto
set -eu
H="$1"
# The remote is made outside this folder, so that the sync.json kept here names a path no
# test run writes to (the tests connect their copies to copies of ./remote).
R=/tmp/habitto-format-v1-remote
rm -rf home remote "$R"
mkdir "$R"
export HABITTO_HOME="$PWD/home"
at() { now="$1"; shift; HABITTO_NOW="$now" "$H" "$@" > /dev/null; }
at 2026-11-18T08:00:00 add "Drink water" --goal 8 --unit glasses --start 2026-11-18
at 2026-11-18T08:00:01 add Run --goal 5 --unit km --start 2026-11-18
at 2026-11-18T08:00:02 add Coffee --limit --goal 2 --start 2026-11-18
at 2026-11-18T08:00:03 add Read --start 2026-11-18
at 2026-11-18T20:00:00 check "Drink water" --amount 8
at 2026-11-18T20:00:01 check Run --amount 5 --difficulty 4
at 2026-11-18T20:00:02 check Read --note "two chapters"
at 2026-11-19T20:00:00 check "Drink water" --amount 3
at 2026-11-19T20:00:01 check Coffee --amount 3
at 2026-11-19T20:00:02 edit Run --goal 3
at 2026-11-19T20:00:03 check Run --amount 4
at 2026-11-19T20:00:04 check Read
at 2026-11-19T20:00:05 check Read
at 2026-11-19T20:00:06 undo
at 2026-11-20T09:00:00 backup create --note "made by the whole-unit version"
at 2026-11-20T09:00:01 remote set "dir:$R" --account fixture
at 2026-11-20T09:00:02 sync
# A snapshot covering everything so far (an unreadable one is rebuilt on opening), then
# one more check-in that only the journal holds.
echo "not a snapshot" > home/snapshot.bin
HABITTO_NOW=2026-11-20T09:00:03 "$H" list > /dev/null 2>&1
at 2026-11-20T09:00:04 check "Drink water" --amount 2
rm -f home/lock home/sync.lock home/sync.json.lock
# What the whole-unit version printed for this data: the new version prints the same.
HABITTO_NOW=2026-11-20T10:00:00 "$H" export > expected-export.json
HABITTO_NOW=2026-11-20T10:00:00 "$H" list > expected-list.txt
rm -f home/lock home/sync.lock home/sync.json.lock
cp -R "$R" remote
rm -rf "$R"
