#!/bin/sh
# Installs Habitto from this folder (the tarball of 'make dist'): the binaries, the themes,
# the man page and the bash, zsh and fish completions, under PREFIX (default /usr/local).
# --uninstall removes exactly the files this folder holds from the same PREFIX.
#   sudo ./install.sh                      # into /usr/local
#   ./install.sh --prefix ~/.local         # for one user, no root
#   sudo ./install.sh --uninstall          # the same prefix as the install
# PREFIX and DESTDIR (a staging root) are also read from the environment.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
action=install
usage() { sed -n '2,8s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder, e.g. --prefix ~/.local" >&2; exit 2; }
              prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --uninstall) action=uninstall; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$1'; run './install.sh --help' for the usage" >&2; exit 2 ;;
  esac
done
case $prefix in
  /*) ;;
  *) echo "install.sh: the prefix must be an absolute path, not '$prefix'" >&2; exit 2 ;;
esac
to="$destdir$prefix"
files=$(cd "$here" && find bin share -type f | LC_ALL=C sort)
if [ "$action" = install ]; then
  for f in $files; do
    case $f in bin/*) mode=755 ;; *) mode=644 ;; esac
    install -d "$(dirname "$to/$f")"
    install -m "$mode" "$here/$f" "$to/$f"
  done
  echo "installed $(echo "$files" | wc -l | tr -d ' ') files under $to ('$0 --uninstall' removes them)"
else
  for f in $files; do rm -f "$to/$f"; done
  rmdir "$to/share/habitto/themes" "$to/share/habitto" 2>/dev/null || true
  echo "removed Habitto from $to"
fi
