# docs/commands.md's `ask` example: two habits kept every day from 2026-11-01 to the 17th.
set -eu
habitto add "Drink water" --goal 8 --unit glasses --icon 💧 --start 2026-11-01
habitto add Read --icon 📚 --start 2026-11-01
for d in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17; do
  habitto check water --date 2026-11-$d --amount 8
  habitto check read --date 2026-11-$d
done
