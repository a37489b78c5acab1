#!/bin/sh
# Turns a staged install (make install DESTDIR=ROOT PREFIX=/usr) into a Debian package:
# compresses the man page, adds the copyright file and the changelog, and writes
# DEBIAN/control (Depends: the packages that own the shared libraries the binaries load)
# and DEBIAN/md5sums, then builds OUT with dpkg-deb.
#   deb.sh ROOT VERSION ARCH MAINTAINER OUT
set -eu
root=$1 version=$2 arch=$3 maintainer=$4 out=$5
fail() { echo "make deb: $*" >&2; exit 1; }
[ -x "$root/usr/bin/habitto" ] || fail "$root/usr/bin/habitto is missing: stage the install first"
for tool in dpkg-deb dpkg-query readelf strings strip ldd ldconfig gzip md5sum; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed (they are in Debian's dpkg, binutils, libc-bin, gzip and coreutils)"
done

# The package that owns a library's file, trying the path ldd gave, the file it links to,
# and the same path with and without /usr (a merged /usr records one of them).
owner() {
  for p in "$1" "$(readlink -f "$1")" "${1#/usr}" "/usr$1"; do
    o=$(dpkg-query -S "$p" 2>/dev/null | head -n 1) || continue
    [ -n "$o" ] && { echo "${o%%:*}"; return 0; }
  done
  return 1
}

# Depends: the packages that own the libraries the binaries load, and not what those load in
# turn: the libraries they are linked to (readelf's NEEDED entries, which ldd must find) and
# the ones they open themselves with dlopen (the versioned library names written in them:
# habitto opens libncursesw.so.6 when the UI starts). Each is found as the loader finds it, in
# ldconfig's cache, among the libraries of the kind (such as x86-64) of the C library that ldd
# gives habitto.
cache=$(ldconfig -p)
# The kind of a cache row: the second item in its brackets (none for the 32-bit x86 ones).
kind_of='{ k = $0; sub(/^[^(]*[(][^,)]*,?/, "", k); sub(/[,)].*$/, "", k) }'
libc=$(ldd "$root/usr/bin/habitto" | awk '$1 == "libc.so.6" { print $3 }')
kind=$(echo "$cache" | awk -v p="$libc" "$kind_of"' $NF == p { print k; exit }')
[ -n "$libc" ] || fail "ldd found no C library for $root/usr/bin/habitto"
depends=""
for bin in "$root"/usr/bin/*; do
  missing=$(ldd "$bin" | grep "not found" || true)
  [ -z "$missing" ] || fail "$bin loads a library that is not on this machine: $missing"
  libs=$({ readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
           strings -n 6 "$bin" | grep -E '^lib[A-Za-z0-9_+-]+[.]so[.][0-9]+$' || true; } | sort -u)
  for lib in $libs; do
    path=$(echo "$cache" | awk -v l="$lib" -v want="$kind" "$kind_of"' $1 == l && k == want { print $NF; exit }')
    [ -n "$path" ] || fail "$bin loads $lib, which is not on this machine"
    package=$(owner "$path") || fail "no installed package owns $path (loaded by $bin)"
    depends="$depends$package
"
  done
done
depends=$(printf '%s' "$depends" | sort -u | paste -sd ',' | sed 's/,/, /g')
[ -n "$depends" ] || fail "found no library that the binaries load"

# Stripped as Debian's packages are (dh_strip's options): the symbol tables and notes are
# left out; the Swift metadata sections stay.
for bin in "$root"/usr/bin/*; do
  strip --remove-section=.comment --remove-section=.note --strip-unneeded "$bin"
done

doc="$root/usr/share/doc/habitto"
install -d -m 755 "$doc" "$root/DEBIAN"
gzip -9nf "$root/usr/share/man/man1/habitto.1"
# The date of the source: SOURCE_DATE_EPOCH when set (reproducible builds), else the last
# commit's, else now.
when=$(if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then date -u -R -d "@$SOURCE_DATE_EPOCH"
       else git log -1 --format=%cD 2>/dev/null || date -u -R; fi)
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: habitto
Upstream-Contact: $maintainer

Files: *
Copyright: $(date -u -d "$when" +%Y) the Habitto developers
License: see the project's source repository
COPYRIGHT
printf 'habitto (%s) unstable; urgency=medium\n\n  * Release %s, built from the source tree with make deb.\n\n -- %s  %s\n' \
  "$version" "$version" "$maintainer" "$when" | gzip -9n > "$doc/changelog.gz"
chmod 644 "$doc/copyright" "$doc/changelog.gz"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f 1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: habitto
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: libnotify-bin
Suggests: age, unzip
Section: utils
Priority: optional
Description: keyboard-driven terminal habit tracker
 Habitto records daily habits in a local, crash-safe journal, shows streaks,
 strength and XP in a full-screen terminal UI and on the command line, and
 syncs between machines through a folder or a WebDAV server.
 .
 Reminders are shown with notify-send (libnotify-bin); encrypted remotes use
 age; importing Loop Habit Tracker backups uses unzip.
CONTROL
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "built $out (Depends: $depends)"
