# docs/ui.md's grouped today screen: Read on its own and three habits in Health, kept since
# 2026-11-01; Read and Stretch done every day, Drink water only today, part of the way.
set -e
export HABITTO_NOW=2026-11-01T08:00:00
habitto add Read --icon 📚 --start 2026-11-01 > /dev/null
habitto add "Drink water" --goal 8 --unit glasses --icon 💧 --group Health --start 2026-11-01 > /dev/null
habitto add "No sugar" --limit --goal 0 --icon 🍬 --group Health --start 2026-11-01 > /dev/null
habitto add Stretch --icon 🧘 --group Health --start 2026-11-01 > /dev/null
export HABITTO_NOW=2026-11-21T09:00:00
for d in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20 21; do
  habitto check Read --date 2026-11-$d > /dev/null
  habitto check Stretch --date 2026-11-$d > /dev/null
done
habitto check "Drink water" --amount 5 > /dev/null
