#!/bin/sh
# Turns a staged install (make install DESTDIR=ROOT PREFIX=/usr) into a Debian package:
# compresses the man page, adds the copyright file and the changelog, and writes
# DEBIAN/control (Depends: the packages that own the shared libraries the binaries load,
# found with readelf, ldd and dpkg-query) and DEBIAN/md5sums, then builds OUT with dpkg-deb.
#   deb.sh ROOT VERSION ARCH MAINTAINER OUT
set -eu
root=$1 version=$2 arch=$3 maintainer=$4 out=$5
fail() { echo "make deb: $*" >&2; exit 1; }
[ -x "$root/usr/bin/habitto" ] || fail "$root/usr/bin/habitto is missing: stage the install first"
for tool in dpkg-deb dpkg-query readelf ldd gzip md5sum; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed (it is in Debian's dpkg, binutils, libc-bin, gzip and coreutils)"
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

# Depends: for each library a binary names (its NEEDED entries, not what those load in
# turn), the file ldd resolves it to and that file's package.
depends=$(for bin in "$root"/usr/bin/*; do
  resolved=$(ldd "$bin") || fail "ldd could not read $bin"
  for lib in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path=$(echo "$resolved" | awk -v lib="$lib" '$1 == lib && $2 == "=>" { print $3 } $1 ~ "/" lib "$" { print $1 }' | head -n 1)
    [ -n "$path" ] && [ "$path" != "not" ] || fail "$bin loads $lib, which is not on this machine"
    owner "$path" || fail "no installed package owns $path (loaded by $bin)"
  done
done | sort -u | paste -sd ',' | sed 's/,/, /g')
[ -n "$depends" ] || fail "found no library that the binaries load"

doc="$root/usr/share/doc/habitto"
install -d -m 755 "$doc" "$root/DEBIAN"
gzip -9nf "$root/usr/share/man/man1/habitto.1"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: habitto
Upstream-Contact: $maintainer

Files: *
Copyright: the Habitto developers
License: see the project's source repository
COPYRIGHT
# The date of the source: SOURCE_DATE_EPOCH when set (reproducible builds), else the last
# commit's, else now.
when=$(if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then date -u -R -d "@$SOURCE_DATE_EPOCH"
       else git log -1 --format=%cD 2>/dev/null || date -u -R; fi)
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
