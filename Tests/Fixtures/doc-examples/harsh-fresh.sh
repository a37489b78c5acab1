# docs/import-and-backups.md's example of a fresh harsh setup: the fixture's habits file
# (Tests/Fixtures/harsh/habits) in ~/.config/harsh with an empty log, as harsh leaves it
# before the first day is logged.
set -eu
mkdir -p .config/harsh
cp "$HABITTO_SOURCE/Tests/Fixtures/harsh/habits" .config/harsh/habits
: > .config/harsh/log
