# docs/ui.md's today screens: four habits kept since 2026-11-01; Drink water and Gym have
# every day up to the 18th, Read and No sugar up to the 20th; today (the 21st) has a start.
set -e
export HABITTO_NOW=2026-11-01T08:00:00
habitto add "Drink water" --goal 8 --unit glasses --icon 💧 --start 2026-11-01 > /dev/null
habitto add Read --icon 📚 --start 2026-11-01 > /dev/null
habitto add "No sugar" --limit --goal 0 --start 2026-11-01 > /dev/null
habitto add Gym --schedule 3/week --start 2026-11-01 > /dev/null
export HABITTO_NOW=2026-11-21T09:00:00
for d in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18; do
  habitto check "Drink water" --amount 8 --date 2026-11-$d > /dev/null
  habitto check Read --date 2026-11-$d > /dev/null
done
habitto check Read --date 2026-11-19 > /dev/null
habitto check Read --date 2026-11-20 > /dev/null
for d in 02 04 06 09 11 13 16 18; do habitto check Gym --date 2026-11-$d > /dev/null; done
habitto check "Drink water" --amount 5 > /dev/null
