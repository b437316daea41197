#!/usr/bin/env bash
# The cross stage of CI: builds and tests edgefold for every target from one source tree.
#   x86-64   the host build's kernel tests on every dispatch level (native = AVX-512 here,
#            qemu-x86_64 -cpu Haswell = AVX2+FMA, -cpu Nehalem = SSE4.2) + the MCU harness
#   aarch64  NEON, GoogleTest suites under qemu-aarch64          (build-aarch64/)
#   armv7    NEON (-mfpu=neon-vfpv4), suites under qemu-arm     (build-armv7/)
#   M4, M7   scalar kernels, tests/mcu harness + examples/mcu under qemu-system-arm
#            (mps2-an386, mps2-an500), incl. scores vs host and the flash budget; on M4 also
#            the fleet device firmware with a loopback broker (fleet_m4, docs/fleet.md)
#   M55      the same with Helium (MVE) int8 kernels, under qemu-system-arm -M mps3-an547
#   every cross target also runs `edgefold validate --target <it>` on the bundled examples
#            and the QDQ goldens (tests/validate): its edgefold_validate under QEMU vs the host
# Usage: scripts/cross-test.sh [--no-install] [targets...]   (default: x86 aarch64 armv7 m4 m7 m55)
# env: HOST_BUILD (native build dir providing bin/edgefold; default build/ if it has one,
#      else build-x86q/), JOBS=2
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
JOBS="${JOBS:-2}"
install=1
targets=()
for a in "$@"; do
  case "$a" in
    --no-install) install=0 ;;
    -h|--help) sed -n 2,14p "$0"; exit 0 ;;
    *) targets+=("$a") ;;
  esac
done
[[ ${#targets[@]} -eq 0 ]] && targets=(x86 aarch64 armv7 m4 m7 m55)

if [[ $install -eq 1 && "$(id -u)" -eq 0 ]]; then
  t0=$SECONDS
  bash "$ROOT/scripts/install-deps.sh" --cross || exit 1
  echo "cross-test: install took $((SECONDS - t0)) s"
fi

if [[ -z "${HOST_BUILD:-}" ]]; then
  HOST_BUILD="$ROOT/build-x86q"
  [[ -x "$ROOT/build/bin/edgefold" ]] && HOST_BUILD="$ROOT/build"
fi

declare -A result seconds
run_stage() {  # run_stage NAME command...
  local name=$1; shift
  local t0=$SECONDS
  echo "=== cross-test: $name"
  if "$@"; then result[$name]=PASS; else result[$name]=FAIL; fi
  seconds[$name]=$((SECONDS - t0))
}

host_tools() {  # the native build: CLI, tiny-model generator, kernel tests, and the fleet
  # programs where libsodium and Paho C are installed (the M4 build's fleet_m4 test uses them)
  cmake -S "$ROOT" -B "$HOST_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null || return 1
  local fleet=()
  for t in edgefold-fleet-aggregator edgefold-fleet-device edgefold-fleet-keygen edgefold-fleet-record; do
    ninja -C "$HOST_BUILD" -t query "$t" >/dev/null 2>&1 && fleet+=("$t")
  done
  cmake --build "$HOST_BUILD" -j"$JOBS" --target edgefold edgefold_mcu_gen edgefold_kernels_test \
    edgefold_mcu_harness "${fleet[@]}"
}

x86_levels() {
  (cd "$HOST_BUILD" && ctest --output-on-failure -j"$JOBS" -R '^(kernels_qemu_|mcu_harness$|Isa/)')
}

cross_build() {  # cross_build DIR TOOLCHAIN BUILD_TYPE [cmake args...]
  local dir=$1 tc=$2 type=$3; shift 3
  # A configure that failed (the cross compiler not yet installed) leaves a cache whose empty
  # per-type flags a later configure keeps: a Release build without NDEBUG, where flatbuffers'
  # alignment asserts fire. Such a directory starts over.
  local cache="$ROOT/$dir/CMakeCache.txt" flags="CMAKE_CXX_FLAGS_${type^^}"
  if [[ -f $cache ]] && { [[ ! -f $ROOT/$dir/build.ninja ]] || grep -q "^$flags:STRING=\$" "$cache"; }; then
    echo "cross-test: $dir was configured without its compiler; configuring it again"
    rm -rf "$cache" "$ROOT/$dir/CMakeFiles"
  fi
  cmake -S "$ROOT" -B "$ROOT/$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$ROOT/targets/$tc.cmake" \
    -DCMAKE_BUILD_TYPE="$type" -DEDGEFOLD_BUILD_COMPILER=OFF "$@" >/dev/null &&
    cmake --build "$ROOT/$dir" -j"$JOBS" &&
    (cd "$ROOT/$dir" && ctest --output-on-failure -j"$JOBS")
}

run_stage host-tools host_tools || true
for t in "${targets[@]}"; do
  case "$t" in
    x86) run_stage x86 x86_levels ;;
    aarch64) run_stage aarch64 cross_build build-aarch64 aarch64-linux-gnu Release \
               -DEDGEFOLD_HOST_BIN_DIR="$HOST_BUILD/bin" ;;
    armv7) run_stage armv7 cross_build build-armv7 arm-linux-gnueabihf Release \
             -DEDGEFOLD_HOST_BIN_DIR="$HOST_BUILD/bin" ;;
    m4) # the fleet firmware's P-256 check from Mbed TLS's Debian source, where it can be fetched
        mbed=(); if src=$("$ROOT/scripts/fetch-mbedtls-source.sh" "$ROOT/build-deps/mbedtls"); then
          mbed=(-DEDGEFOLD_MBEDTLS_SOURCE_DIR="$src"); else
          echo "cross-test: no Mbed TLS source: the M4 fleet firmware checks no signature"; fi
        run_stage m4 cross_build build-m4 arm-none-eabi-cortex-m4 MinSizeRel \
             -DEDGEFOLD_HOST_BIN_DIR="$HOST_BUILD/bin" "${mbed[@]}" ;;
    m7|m55) run_stage "$t" cross_build "build-$t" "arm-none-eabi-cortex-$t" MinSizeRel \
             -DEDGEFOLD_HOST_BIN_DIR="$HOST_BUILD/bin" ;;
    *) echo "unknown target '$t'"; exit 2 ;;
  esac
done

echo
echo "=== cross-test summary"
status=0
for name in host-tools "${targets[@]}"; do
  printf '  %-10s %-5s %4d s\n' "$name" "${result[$name]:-SKIP}" "${seconds[$name]:-0}"
  [[ "${result[$name]:-}" == PASS ]] || status=1
done
exit $status
