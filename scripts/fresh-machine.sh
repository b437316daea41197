#!/usr/bin/env bash
# Runs commands in a clean clone of the project inside a FRESH minimal Debian 12 (a debootstrap
# chroot, as root): the way a newcomer's machine looks. A package that only your own machine
# has installed by hand shows up here as a failure, long before a user meets it.
#
# Usage (from the project checkout, as root):
#   scripts/fresh-machine.sh 'scripts/run-example.sh' 'scripts/run-tests.sh'
# Each command runs in /root/project of the chroot; its log goes to /var/tmp/fresh-<cmd>.log.
# Prints "rc=N  SECONDSs  CMD" per command; exits 0 only when every command exits 0, and 3
# when no fresh system could be built or its package mirror is unreachable (nothing checked).
# .ci/run calls it for the README's example.
# The base system is built once (about 1.5 min) and cached in /var/tmp/fresh-bookworm.tar.
# Commits only: uncommitted changes are not in the clone (commit first).
set -u
ROOT=${FRESH_ROOT:-/var/tmp/fresh-bookworm}
TAR=${FRESH_TAR:-/var/tmp/fresh-bookworm.tar}
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine: run as root" >&2; exit 2; }
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; } \
  || { echo "fresh-machine: cannot install debootstrap" >&2; exit 3; }
mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
if [ ! -f "$TAR" ]; then
  rm -rf "$ROOT.base"; mkdir -p "$ROOT.base"
  debootstrap --variant=minbase --include=ca-certificates,git bookworm "$ROOT.base" ${mirror:+"$mirror"} \
      >/var/tmp/fresh-debootstrap.log 2>&1 \
    || { echo "fresh-machine: debootstrap failed (see /var/tmp/fresh-debootstrap.log)" >&2; exit 3; }
  [ -f /etc/apt/sources.list.d/debian.sources ] && cp /etc/apt/sources.list.d/debian.sources "$ROOT.base/etc/apt/sources.list.d/"
  rm -f "$ROOT.base/etc/apt/sources.list"
  tar -C "$ROOT.base" -cf "$TAR" . && rm -rf "$ROOT.base"
fi
cleanup() { for m in dev/pts dev proc sys; do umount -l "$ROOT/$m" 2>/dev/null; done; }
trap cleanup EXIT
cleanup; rm -rf "$ROOT"; mkdir -p "$ROOT"; tar -C "$ROOT" -xf "$TAR"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null
for m in proc sys dev dev/pts; do mount --bind "/$m" "$ROOT/$m"; done
chroot "$ROOT" apt-get update -qq >/var/tmp/fresh-apt-update.log 2>&1 \
  || { echo "fresh-machine: the fresh system reaches no package mirror (see /var/tmp/fresh-apt-update.log)" >&2; exit 3; }
git clone -q "$(git rev-parse --show-toplevel)" "$ROOT/root/project" || exit 2
[ -d "$(git rev-parse --show-toplevel)/../shared" ] && cp -r "$(git rev-parse --show-toplevel)/../shared" "$ROOT/root/shared"
rc_all=0
for cmd in "$@"; do
  start=$(date +%s)
  log="/var/tmp/fresh-$(echo "$cmd" | tr -c 'a-zA-Z0-9' _ | cut -c1-40).log"
  chroot "$ROOT" /bin/bash -lc "cd /root/project && $cmd" >"$log" 2>&1
  rc=$?; [ $rc -eq 0 ] || rc_all=1
  echo "rc=$rc  $(( $(date +%s) - start ))s  $cmd   (log: $log)"
  [ $rc -eq 0 ] || tail -5 "$log" | sed 's/^/    /'
done
exit $rc_all
