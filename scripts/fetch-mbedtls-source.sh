#!/usr/bin/env bash
# Mbed TLS's source from Debian (the `mbedtls` source package of the installed libmbedcrypto,
# through a private deb-src list: the system's apt configuration is left alone), unpacked
# under DIR; prints the source tree's path. The Cortex-M fleet firmware builds its ECDSA P-256
# check from it (cmake -DEDGEFOLD_MBEDTLS_SOURCE_DIR=<that path>; docs/fleet.md).
# usage: scripts/fetch-mbedtls-source.sh DIR   (needs the network the first time; then reuses DIR)
set -euo pipefail
DIR="$(mkdir -p "$1" && cd "$1" && pwd)"
found() { local t; t=$(find "$DIR" -maxdepth 3 -path '*/library/ecdsa.c' -printf '%h\n' 2>/dev/null | head -1); [[ -n $t ]] && dirname "$t"; }
if top=$(found); then echo "$top"; exit 0; fi
version=$(dpkg-query -W -f='${source:Version}' libmbedcrypto7 2>/dev/null || true)
[[ -n $version ]] || { echo "fetch-mbedtls-source: libmbedcrypto7 not installed (scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p "$DIR/apt/parts" "$DIR/apt/lists/partial"
sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$DIR/apt/parts/src.sources"
opt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$DIR/apt/parts"
     -o "Dir::State::Lists=$DIR/apt/lists")
cd "$DIR"
apt-get "${opt[@]}" update -qq >&2
apt-get "${opt[@]}" source --download-only "mbedtls=$version" >&2
tar -xzf mbedtls_*.orig.tar.gz
top=$(found) || { echo "fetch-mbedtls-source: no library/ecdsa.c in the source" >&2; exit 1; }
echo "$top"
