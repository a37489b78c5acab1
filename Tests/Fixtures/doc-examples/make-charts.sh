#!/bin/sh
# Makes charts.json, the demo habits that docs/charts.md's examples show (kept since
# 2026-09-01 until 2026-11-21): run it with the built habitto on PATH, then commit the file.
#   PATH=.build/debug:$PATH sh Tests/Fixtures/doc-examples/make-charts.sh
set -eu
out=$(cd "$(dirname "$0")" && pwd)/charts.json
export HABITTO_HOME=$(mktemp -d) TZ=UTC HABITTO_NOW=2026-09-01T08:00:00
trap 'rm -rf "$HABITTO_HOME"' EXIT
habitto add "Drink water" --goal 8 --unit glasses --start 2026-09-01 >/dev/null
habitto add Read --start 2026-09-01 >/dev/null
habitto add "No sugar" --limit --goal 0 --start 2026-09-01 >/dev/null
habitto add Gym --schedule 3/week --start 2026-09-01 >/dev/null
# One line per write: a fixed pseudo-random sequence, so the file is the same each time.
awk 'BEGIN {
  seed = 7
  for (d = 0; d < 82; d++) {
    t = mktime("2026 09 01 12 00 00") + d * 86400
    day = strftime("%Y-%m-%d", t, 1); wd = strftime("%u", t, 1)   # 1 Monday … 7 Sunday
    seed = (seed * 1103515245 + 12345) % 2147483648; r = seed % 100
    print "check water --date " day " --amount " (d % 6 == 1 ? 5 : 8)
    if ((wd == 5 && r < 70) || (wd != 5 && r < 10)) { } else print "check read --date " day " --difficulty " (1 + r % 4)
    if (d == 80) print "check sugar --date " day " --amount 1"
    if (day >= "2026-10-12" && day <= "2026-10-18") print "skip gym --date " day
    else if ((wd == 1 || wd == 3 || wd == 5) && !(r > 85 && d < 40)) print "check gym --date " day
  }
}' | while read -r line; do
  # shellcheck disable=SC2086
  HABITTO_NOW=2026-11-21T21:00:00 habitto $line >/dev/null
done
HABITTO_NOW=2026-11-21T21:00:00 habitto export --output "$out"
