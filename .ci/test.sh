#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine with Swift installed: installs what the
# tests need from Debian's packages (only when missing), then builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
dpkg -s libncurses-dev >/dev/null 2>&1 || need+=(libncurses-dev)
command -v mount >/dev/null 2>&1 || need+=(mount)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
[ -x /usr/sbin/apache2 ] || need+=(apache2)
command -v htpasswd >/dev/null 2>&1 || need+=(apache2-utils)
# A second, different WebDAV server for the sync tests (rclone serve webdav).
[ -x /usr/bin/rclone ] || need+=(rclone)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# Encrypted remotes run age and age-keygen (the sync tests encrypt against a folder and Apache).
command -v age >/dev/null 2>&1 || need+=(age)
# The hostile HTTP servers of the sync tests (Tests/Fixtures/servers) are Python scripts.
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v zip >/dev/null 2>&1 || need+=(zip)
command -v unzip >/dev/null 2>&1 || need+=(unzip)
command -v task >/dev/null 2>&1 || need+=(taskwarrior)
[ -x /usr/bin/time ] || need+=(time)
# The completion scripts are checked in zsh and fish, the man page with man and groff, and
# 'make install' is run into a temporary DESTDIR.
command -v zsh >/dev/null 2>&1 || need+=(zsh)
command -v fish >/dev/null 2>&1 || need+=(fish)
command -v man >/dev/null 2>&1 || need+=(man-db)
command -v groff >/dev/null 2>&1 || need+=(groff-base)
command -v make >/dev/null 2>&1 || need+=(make)
# 'make deb' reads the binaries' libraries with readelf and ldd and builds with dpkg-deb; the
# package is checked with lintian, installed with dpkg -i and removed with dpkg -r.
command -v readelf >/dev/null 2>&1 || need+=(binutils)
command -v dpkg-deb >/dev/null 2>&1 || need+=(dpkg)
command -v lintian >/dev/null 2>&1 || need+=(lintian)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  # Install without starting services (the tests start their own Apache and rclone on free ports).
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $sudo_cmd tee "$policy" >/dev/null
    $sudo_cmd chmod +x "$policy"
  fi
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}"
  [ -z "$policy" ] || $sudo_cmd rm -f "$policy"
fi

swift build --build-tests
# The static release build of the packages (PackageTests: make deb, make dist), made here so
# that its minutes of both cores do not fall on the tests running beside it; make reuses it.
make build
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# The suite runs in two processes at a time, one per core, over chunks taken in turn as a
# process ends: the tests, in the order XCTest lists them, are dealt to the chunks in turn
# (neighbours are often alike in cost), so the two cores end within about a chunk of each
# other. Each test starts its own servers, tmux and folders, so no two share one. The test
# bundle is run directly: `swift test` would plan the build again for each chunk (5 s).
bundle="$(swift build --show-bin-path)/habittoPackageTests.xctest"
"$bundle" --list-tests | grep -E '^[A-Za-z0-9_]+[.][A-Za-z0-9_]+/test' > "$logs/all"
listed=$(wc -l < "$logs/all")
chunks=$((listed < 24 ? listed : 24))
for ((i = 0; i < chunks; i++)); do
  awk -v n="$chunks" -v i="$i" 'NR % n == i' "$logs/all" | paste -sd ',' > "$logs/filter$i"
done
run_chunk() {
  "$bundle" "$(cat "$logs/filter$1")" > "$logs/log$1" 2>&1
}
set +e
status=0
for ((i = 0; i < chunks; i++)); do
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do
    wait -n
    s=$?
    [ "$s" -eq 0 ] || status=$s
  done
  run_chunk "$i" &
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
  wait -n
  s=$?
  [ "$s" -eq 0 ] || status=$s
done
set -e
cat "$logs"/log[0-9]* > "$logs/output"
cat "$logs/output"
# XCTest's summary of each process, added up and restated as one plain closing line. Only the
# line under the top suite ("Selected tests"): a run that ends abnormally (a crash, a kill)
# leaves the last sub-suite's count, which is not the whole run's.
total=0; failed=0; summaries=0
for ((i = 0; i < chunks; i++)); do
  summary=$(awk "/^Test Suite '(All|Selected) tests' (passed|failed)/ { getline; print }" "$logs/log$i" | grep -E "^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?" | tail -n 1)
  [ -n "$summary" ] || continue
  summaries=$((summaries + 1))
  total=$((total + $(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')))
  failed=$((failed + $(echo "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')))
done
[ "$total" -eq "$listed" ] || { echo "tests: $total of the $listed listed tests ran"; [ "$status" -ne 0 ] || status=1; }
# The benchmark on small data sets (no goals judged), so that it never rots.
set +e
"$(swift build --show-bin-path)/habitto-bench" --quick
bench=$?
set -e
[ "$bench" -eq 0 ] || echo "habitto-bench --quick failed (exit $bench)"
if [ "$summaries" -eq "$chunks" ]; then
  # Restate each failure last, so that it is on screen even when only the tail is kept.
  grep -E "error: |Test Case '.*' failed \(" "$logs/output" | tail -n 40 || true
  echo "tests: $((total - failed)) passed, $failed failed"
else
  echo "tests: no summary from $((chunks - summaries)) of the $chunks test processes (a run ended abnormally, exit $status)"
  for ((i = 0; i < chunks; i++)); do tail -n 20 "$logs/log$i"; done
fi
[ "$status" -ne 0 ] && exit "$status"
exit "$bench"
