#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine with Swift installed: installs what the
# tests need from Debian's packages (only when missing), then builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
dpkg -s libncurses-dev >/dev/null 2>&1 || need+=(libncurses-dev)
command -v mount >/dev/null 2>&1 || need+=(mount)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}"
fi

swift build --build-tests
swift test --skip-build
