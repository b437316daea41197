#!/usr/bin/env bash
# The fleet demo (docs/fleet.md): a Mosquitto broker on loopback (TLS, a credential per device,
# an ACL), the aggregator and FLEET_DEVICES edgefold devices, each with its own non-IID drifted
# shard of the digits data, adapting their BatchNorm statistics together over FLEET_ROUNDS
# rounds; the broker is restarted once in the middle. Prints per device the accuracy of the
# deployed model, local-only adaptation, federated adaptation and centralized re-estimation,
# then bytes per round, lost/duplicated updates and refused records.
#   FLEET_DEVICES (10) FLEET_SEED (1) FLEET_ROUNDS (4) FLEET_ADAPT (40 images per device)
#   FLEET_KEEP=1: keep the work directory (logs, keys, broker) also after a successful run
#   BUILD_DIR (build), JOBS (2): as the README's commands, it installs what is missing (as
#   root: scripts/install-deps.sh) and builds the fleet programs and the digits model there.
#   FLEET_M4 (1 when qemu-system-arm and M4_BUILD_DIR/bin/mcu_fleet_device.elf exist): the last
#   device is the Cortex-M4 firmware under QEMU, its UART bridged to the broker by
#   fleet/m4_bridge.py with its own credential   M4_BUILD_DIR (build-m4)
# Exit status 1 when a process fails or a goal is missed: federated ≥ local-only + 2 points
# (mean), within 1 point of centralized, no device below its deployed accuracy, 0 lost.
set -euo pipefail
source "$(dirname "$0")/build-env.sh"
source "$ROOT/scripts/fleet-broker-env.sh"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${CMAKE_LAUNCHER_ARGS[@]}" > /dev/null
cmake --build "$BUILD_DIR" -j"$JOBS" --target edgefold-fleet-device edgefold-fleet-aggregator \
  edgefold-fleet-keygen edgefold-fleet-record digits_train_model > /dev/null
DEVICES="${FLEET_DEVICES:-10}"
SEED="${FLEET_SEED:-1}"
ROUNDS="${FLEET_ROUNDS:-4}"
ADAPT="${FLEET_ADAPT:-40}"
BIN="$BUILD_DIR/bin"
MODEL="$BUILD_DIR/digits_cnn_train.efb"
for f in "$BIN/edgefold-fleet-device" "$BIN/edgefold-fleet-aggregator" "$BIN/edgefold-fleet-keygen" "$MODEL"; do
  [[ -e "$f" ]] || { echo "run-fleet-demo: $f was not built (libsodium, Paho C: scripts/install-deps.sh)" >&2; exit 2; }
done
M4_DIR="${M4_BUILD_DIR:-$ROOT/build-m4}"
M4_ELF="$M4_DIR/bin/mcu_fleet_device.elf"
# No M4 firmware yet but the cross compiler and QEMU are there (install-deps.sh --cross): build
# the fleet firmware alone (its P-256 check from Mbed TLS's Debian source where that can be
# fetched), so the demo's last device is a Cortex-M4 on a fresh machine too.
build_m4_firmware() {
  echo "fleet: building the Cortex-M4 fleet firmware in $M4_DIR"
  cmake --build "$BUILD_DIR" -j"$JOBS" --target edgefold edgefold_mcu_gen > /dev/null || return 1
  local mbed=() src
  if src=$("$ROOT/scripts/fetch-mbedtls-source.sh" "$ROOT/build-deps/mbedtls" 2>/dev/null); then
    mbed=(-DEDGEFOLD_MBEDTLS_SOURCE_DIR="$src")
  fi
  cmake -S "$ROOT" -B "$M4_DIR" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel "${CMAKE_LAUNCHER_ARGS[@]}" \
    -DCMAKE_TOOLCHAIN_FILE="$ROOT/targets/arm-none-eabi-cortex-m4.cmake" \
    -DEDGEFOLD_BUILD_COMPILER=OFF -DEDGEFOLD_HOST_BIN_DIR="$BIN" "${mbed[@]}" > /dev/null &&
    cmake --build "$M4_DIR" -j"$JOBS" --target mcu_fleet_device > /dev/null
}
if [[ "${FLEET_M4:-}" != 0 && ! -f "$M4_ELF" ]] && command -v arm-none-eabi-g++ > /dev/null &&
   command -v qemu-system-arm > /dev/null; then
  build_m4_firmware || echo "fleet: the Cortex-M4 firmware did not build"
fi
if [[ -z "${FLEET_M4:-}" ]]; then
  FLEET_M4=0
  if command -v qemu-system-arm >/dev/null && [[ -f "$M4_ELF" ]]; then FLEET_M4=1; else
    echo "fleet: no Cortex-M4 device (needs qemu-system-arm and $M4_ELF: the M4 build's mcu_fleet_device)"
  fi
fi
# The M4 firmware built with its P-256 check (Mbed TLS's source) gets the fleet's P-256 key and
# the aggregator's P-256-signed copies (--p256-secret-key, where the host build has Mbed TLS).
M4_P256=0
if [[ $FLEET_M4 == 1 ]] && grep -q mbedtls_ecdsa_verify "$M4_ELF.map" 2>/dev/null &&
   [[ "$("$BIN/edgefold-fleet-record" 2>&1 || true)" == *sign-p256* ]]; then M4_P256=1; fi
# device ID ARGS...: edgefold-fleet-device, or for the last device with FLEET_M4=1 the bridge to
# the Cortex-M4 firmware (the same arguments and output lines).
device() {
  local id=$1; shift
  if [[ $FLEET_M4 == 1 && $id == "$DEVICES" ]]; then
    local key=(); [[ $M4_P256 == 1 && -f "$WORK/fleet.p256pk" ]] && key=(--p256-pubkey "$WORK/fleet.p256pk")
    /usr/bin/python3 "$ROOT/fleet/m4_bridge.py" --elf "$M4_ELF" --id "$id" "${key[@]}" "$@"
  else
    "$BIN/edgefold-fleet-device" --id "$id" "$@"
  fi
}
WORK="$(mktemp -d /tmp/edgefold-fleet.XXXXXX)"
PIDS=()
cleanup() {   # the logs stay in $WORK when something failed (FLEET_KEEP=1: always)
  local rc=$?
  for p in "${PIDS[@]:-}"; do [[ -n "$p" ]] && kill "$p" 2>/dev/null || true; done
  fleet_broker_down
  if [[ $rc == 0 && "${FLEET_KEEP:-0}" != 1 ]]; then rm -rf "$WORK"; else echo "fleet: logs in $WORK"; fi
}
trap cleanup EXIT

/usr/bin/python3 "$ROOT/examples/digits/make_fleet_shards.py" "$WORK/data" "$DEVICES" "$SEED" "$ADAPT"
"$BIN/edgefold-fleet-keygen" "$WORK/fleet" > /dev/null
AGG_P256=()
if [[ $M4_P256 == 1 ]]; then
  "$BIN/edgefold-fleet-record" p256-keygen "$WORK/fleet"
  AGG_P256=(--p256-secret-key "$WORK/fleet.p256sk")
fi
fleet_broker_up "$WORK/broker" "$DEVICES"
MQTT=("${FLEET_MQTT[@]}")

echo "fleet: $DEVICES devices, seed $SEED, $ROUNDS rounds, $ADAPT adaptation images each, broker 127.0.0.1:$FLEET_PORT (TLS)"
if [[ $FLEET_M4 == 1 ]]; then
  sig="CRC and model hash only (no P-256 check in this build)"
  [[ $M4_P256 == 1 ]] && sig="ECDSA P-256 signatures checked on the M4 (Mbed TLS)"
  echo "fleet: device $DEVICES is a Cortex-M4 firmware under QEMU (mps2-an386), bridged over its UART; $sig"
fi
for mode in deployed local central; do
  for d in $(seq "$DEVICES"); do
    device "$d" --model "$MODEL" --data "$WORK/data" --mode "$mode" --devices "$DEVICES"
  done
done > "$WORK/offline.txt"

"$BIN/edgefold-fleet-aggregator" "${AGG_P256[@]}" --model "$MODEL" --secret-key "$WORK/fleet.sk" \
  --devices "$DEVICES" --rounds "$ROUNDS" --round-timeout 60 "${MQTT[@]}" --user aggregator \
  --password-file "$WORK/broker/pass/aggregator" --state "$WORK/aggregator-state" \
  > "$WORK/aggregator.txt" 2>&1 &
AGG=$!
PIDS+=("$AGG")
# Devices start once the aggregator's persistent subscription exists (the broker then queues
# every update for it, also while it is disconnected).
for _ in $(seq 300); do
  grep -q "^aggregator: model" "$WORK/aggregator.txt" && break
  kill -0 "$AGG" 2>/dev/null || break
  sleep 0.1
done
DEV_PIDS=()
for d in $(seq "$DEVICES"); do
  device "$d" --model "$MODEL" --data "$WORK/data" --mode fleet \
    --rounds "$ROUNDS" "${MQTT[@]}" --user "$d" --password-file "$WORK/broker/pass/$d" \
    --pubkey "$WORK/fleet.pk" --round-timeout 120 --round-delay-ms 1500 --state "$WORK/state_$d" \
    > "$WORK/device_$d.txt" 2>&1 &
  DEV_PIDS+=($!)
  PIDS+=($!)
done
# One broker restart in the middle: after round ROUNDS/2 is closed.
HALF=$(( (ROUNDS + 1) / 2 ))
for _ in $(seq 600); do
  grep -q "round $HALF closed" "$WORK/aggregator.txt" && break
  kill -0 "$AGG" 2>/dev/null || break
  sleep 0.1
done
echo "fleet: restarting the broker after round $HALF"
fleet_broker_restart
failed=0
for p in "${DEV_PIDS[@]}"; do wait "$p" || failed=1; done
wait "$AGG" || failed=1
PIDS=()
cat "$WORK"/device_*.txt | grep -h "accuracy" > "$WORK/fleet.txt" || true
grep -h "refused" "$WORK"/device_*.txt | grep -v "fleet rounds\|m4 ram" || true
grep "^aggregator" "$WORK/aggregator.txt"
[[ $failed == 0 ]] || { echo "fleet: a process failed" >&2; tail -n 5 "$WORK"/device_*.txt "$WORK/aggregator.txt" >&2; exit 1; }
/usr/bin/python3 - "$WORK/offline.txt" "$WORK/fleet.txt" "$WORK/aggregator.txt" "$DEVICES" <<'PY'
import re, sys
acc = {}
for path in sys.argv[1:3]:
    for line in open(path):
        m = re.match(r"device (\d+) (\w+) accuracy ([\d.]+)", line)
        if m:
            acc.setdefault(int(m.group(1)), {})[m.group(2)] = 100 * float(m.group(3))
n = int(sys.argv[4])
cols = ["deployed", "local", "fleet", "central"]
print("device  deployed  local-only  federated  centralized   (% on its 200 drifted evaluation images)")
for d in range(1, n + 1):
    print(f"{d:6d}" + "".join(f"{acc[d][c]:11.1f}" for c in cols))
mean = {c: sum(acc[d][c] for d in range(1, n + 1)) / n for c in cols}
print("  mean" + "".join(f"{mean[c]:11.1f}" for c in cols))
agg = open(sys.argv[3]).read()
lost = int(re.search(r"lost (\d+)", agg).group(1))
below = [d for d in range(1, n + 1) if acc[d]["fleet"] < acc[d]["deployed"]]
goals = [("federated >= local-only + 2 points", mean["fleet"] >= mean["local"] + 2),
         ("federated within 1 point of centralized", abs(mean["fleet"] - mean["central"]) <= 1),
         ("no device below its deployed accuracy", not below),
         ("0 updates lost", lost == 0)]
for name, ok in goals:
    print(f"goal: {name}: {'met' if ok else 'MISSED'}")
sys.exit(0 if all(ok for _, ok in goals) else 1)
PY
