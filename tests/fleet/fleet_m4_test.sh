#!/usr/bin/env bash
# The Cortex-M4 fleet device (examples/mcu/fleet_main.cc under QEMU, bridged by
# fleet/m4_bridge.py over its UART0) in a fleet with one host device, through a Mosquitto broker
# the test starts on loopback (TLS, a credential per device, the ACL), bounded in time.
#   1. Two rounds, each M4 update sent twice: every update accepted, the copies counted once;
#      the M4 applies the signed global record and computes the same accuracy as a host device
#      applying it on the M4's shard.
#   2. Global records the firmware must refuse (wrong model hash, truncated, CRC broken, a NaN),
#      its accuracy staying the deployed one; then the genuine record applies.
#   3. SIGNATURE p256 (the firmware built with Mbed TLS's P-256 check): in 1 the M4 holds the
#      fleet's P-256 key and applies the aggregator's P-256-signed copies; here records signed
#      by another P-256 key, with the Ed25519 key, or unsigned are refused, the P-256-signed
#      genuine record applied.
# Exit 77 (skipped) when Mosquitto, openssl, qemu-system-arm or the host fleet programs are missing.
# usage: fleet_m4_test.sh HOST_BIN_DIR FIRMWARE.elf MODEL.efb SOURCE_ROOT [none|p256]
set -uo pipefail
BIN="$1"; ELF="$2"; MODEL="$3"; ROOT="$4"; SIGNATURE="${5:-none}"
for tool in mosquitto mosquitto_passwd mosquitto_pub openssl qemu-system-arm; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/install-deps.sh)"; exit 77; }
done
for p in edgefold-fleet-aggregator edgefold-fleet-device edgefold-fleet-keygen edgefold-fleet-record; do
  [[ -x "$BIN/$p" ]] || { echo "SKIP: $BIN/$p missing (the host build's fleet programs: libsodium, Paho C)"; exit 77; }
done
/usr/bin/python3 -c "import paho.mqtt.client, numpy" 2>/dev/null || { echo "SKIP: python3-paho-mqtt missing"; exit 77; }
WORK="$(mktemp -d /tmp/edgefold-fleet-m4.XXXXXX)"
source "$ROOT/scripts/fleet-broker-env.sh"
cleanup() { fleet_broker_down; rm -rf "$WORK"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
fleet_broker_up "$WORK/broker" 2 || fail "broker start"
/usr/bin/python3 "$ROOT/examples/digits/make_fleet_shards.py" "$WORK/data" 2 5 20 >/dev/null || fail "shards"
"$BIN/edgefold-fleet-keygen" "$WORK/fleet" >/dev/null || fail "keygen"
pass() { fleet_pass "$1"; }
C=("${FLEET_MOSQ[@]}")
MQTT=("${FLEET_MQTT[@]}" --connect-timeout 20)
M4=(/usr/bin/python3 "$ROOT/fleet/m4_bridge.py" --elf "$ELF" --model "$MODEL" --data "$WORK/data" --id 2)

# 1. Two rounds: host device 1 and the M4 as device 2 (each update sent twice). With the P-256
#    check the aggregator also publishes P-256-signed copies, the M4 (holding the key) takes those.
mkdir -p "$WORK/saved"
P256_AGG=(); P256_DEV=()
if [[ $SIGNATURE == p256 ]]; then
  "$BIN/edgefold-fleet-record" p256-keygen "$WORK/fleet" && "$BIN/edgefold-fleet-record" p256-keygen "$WORK/rogue" ||
    fail "p256-keygen (the host build needs libmbedtls-dev)"
  P256_AGG=(--p256-secret-key "$WORK/fleet.p256sk"); P256_DEV=(--p256-pubkey "$WORK/fleet.p256pk")
fi
"$BIN/edgefold-fleet-aggregator" "${P256_AGG[@]}" --model "$MODEL" --secret-key "$WORK/fleet.sk" --devices 2 --rounds 2 \
  --round-timeout 60 "${MQTT[@]}" --user aggregator --password "$(pass aggregator)" \
  --save-dir "$WORK/saved" > "$WORK/agg.txt" 2>&1 &
AGG=$!
for _ in $(seq 200); do grep -q "^aggregator: model" "$WORK/agg.txt" && break; sleep 0.1; done
"$BIN/edgefold-fleet-device" --model "$MODEL" --data "$WORK/data" --id 1 --mode fleet --rounds 2 \
  --round-timeout 90 "${MQTT[@]}" --user 1 --password "$(pass 1)" --pubkey "$WORK/fleet.pk" > "$WORK/dev1.txt" 2>&1 &
DEV1=$!
"${M4[@]}" "${P256_DEV[@]}" --mode fleet --rounds 2 --resend 1 --round-timeout 90 "${MQTT[@]}" --user 2 \
  --password "$(pass 2)" --state "$WORK/m4-state" --log "$WORK/qemu.txt" > "$WORK/dev2.txt" 2>&1 ||
  { cat "$WORK/dev2.txt" "$WORK/qemu.txt"; fail "the M4 device failed"; }
wait "$DEV1" || { cat "$WORK/dev1.txt"; fail "device 1 failed"; }
wait "$AGG" || { cat "$WORK/agg.txt"; fail "the aggregator failed"; }
cat "$WORK/agg.txt" "$WORK/dev2.txt"
grep -q "accepted 4, lost 0, duplicates [1-9]" "$WORK/agg.txt" || fail "the M4's update was not counted exactly once"
grep -q "duplicate of (device 2, round 1)" "$WORK/agg.txt" || fail "the M4's second copy was not seen as a duplicate"
m4_acc="$(grep "device 2 fleet accuracy" "$WORK/dev2.txt" | awk '{print $5}')"
[[ -n "$m4_acc" ]] || fail "the M4 reported no accuracy"
GENUINE="$WORK/saved/global_2.bin"
mosquitto_pub "${C[@]}" -u aggregator -P "$(pass aggregator)" -t fleet/global -r -f "$GENUINE" || fail "publish"
"$BIN/edgefold-fleet-device" --model "$MODEL" --data "$WORK/data" --id 2 --mode apply --round-timeout 5 \
  "${MQTT[@]}" --user 2 --password "$(pass 2)" --client-id device-2-host --pubkey "$WORK/fleet.pk" > "$WORK/host2.txt" 2>&1
grep -q "accuracy $m4_acc" "$WORK/host2.txt" || fail "the M4 ($m4_acc) and a host device ($(cat "$WORK/host2.txt")) differ after the same global record"
echo "ok: the M4's update counted once; after the global record it computes what a host device does ($m4_acc)"
# The bridge restarted on the M4's state (both rounds sent and applied): the firmware checks and
# applies the saved global record again, nothing is sent, the accuracy is the fleet run's.
grep -q "edgefold-device-state 1 sent 2 applied 2" "$WORK/m4-state/state.txt" || fail "the bridge's state: $(cat "$WORK/m4-state/state.txt")"
"${M4[@]}" "${P256_DEV[@]}" --mode fleet --rounds 2 --round-timeout 5 "${MQTT[@]}" --user 2 \
  --password "$(pass 2)" --client-id device-2-resumed --state "$WORK/m4-state" > "$WORK/resumed.txt" 2>&1 ||
  fail "the resumed M4 failed: $(cat "$WORK/resumed.txt")"
grep -q "device 2 resumed: sent 2, applied 2" "$WORK/resumed.txt" || fail "the M4 did not resume: $(cat "$WORK/resumed.txt")"
grep -q "sent round" "$WORK/resumed.txt" && fail "the resumed M4 sent an update again: $(cat "$WORK/resumed.txt")"
grep -q "accuracy $m4_acc" "$WORK/resumed.txt" || fail "the resumed M4: $(cat "$WORK/resumed.txt"), the fleet run had $m4_acc"
echo "ok: the M4 restarted on its bridge's state applies its saved global record, sends nothing again ($m4_acc)"

# 2. Forged or corrupt global records, then the genuine one, applied by the firmware.
deployed="$("${M4[@]}" --mode deployed 2>/dev/null | awk '{print $5}')"
[[ -n "$deployed" ]] || fail "no deployed accuracy"
head -c -64 "$GENUINE" > "$WORK/unsigned.bin"
/usr/bin/python3 - "$WORK/unsigned.bin" "$WORK" <<'PY'
import struct, sys, zlib
r = bytearray(open(sys.argv[1], "rb").read())
def reseal(b):
    b[-4:] = struct.pack("<I", zlib.crc32(bytes(b[:-4])))
    return b
hashed = bytearray(r); hashed[8] ^= 1
open(sys.argv[2] + "/wrong_hash.bin", "wb").write(reseal(hashed))
nan = bytearray(r); nan[34:38] = struct.pack("<f", float("nan"))
open(sys.argv[2] + "/nan.bin", "wb").write(reseal(nan))
crc = bytearray(r); crc[40] ^= 0x40
open(sys.argv[2] + "/crc.bin", "wb").write(crc)
PY
for f in wrong_hash nan crc; do
  "$BIN/edgefold-fleet-record" sign "$WORK/fleet.sk" "$WORK/$f.bin" "$WORK/$f.signed" || fail "sign"
done
head -c 100 "$GENUINE" > "$WORK/truncated.signed"
GLOBAL=fleet/global
# The firmware's RAM line: what the exchange adds (its statics and the stack an import goes
# deeper than adaptation, painted and scanned; the record buffer and Mbed TLS's pool lent by the
# arena's idle span) must stay within 2x the signed record.
check_ram() {
  local ratio
  ratio="$(grep -o 'extra [0-9]* = [0-9.]*x the signed record [0-9]*' "$1" | awk '{print $4}')"
  [[ -n "$ratio" ]] || fail "the firmware reported no exchange RAM: $(grep 'm4 ram' "$1")"
  awk -v r="${ratio%x}" 'BEGIN { exit !(r > 0 && r <= 2.0) }' ||
    fail "the exchange adds ${ratio} the signed record (more than 2x): $(grep 'm4 ram' "$1")"
  echo "ok: the exchange adds ${ratio} the signed record's bytes to the M4's RAM"
}
apply() {   # NAME EXPECTED-REFUSAL: publish NAME.signed retained on $GLOBAL, the M4 in apply mode
  mosquitto_pub "${C[@]}" -u aggregator -P "$(pass aggregator)" -t "$GLOBAL" -r -f "$WORK/$1.signed" || fail "publish $1"
  "${M4[@]}" --mode apply --round-timeout 4 "${MQTT[@]}" --user 2 --password "$(pass 2)" \
    --client-id device-2-check > "$WORK/apply.txt" 2>&1 || fail "apply $1: $(cat "$WORK/apply.txt")"
  grep -q "refused a global record: .*$2" "$WORK/apply.txt" || fail "$1 not refused for '$2': $(cat "$WORK/apply.txt")"
  grep -q "accuracy $deployed" "$WORK/apply.txt" || fail "$1 changed the model: $(cat "$WORK/apply.txt") (deployed $deployed)"
  echo "ok: $1 refused by the firmware ($(grep -o 'refused a global record: .*' "$WORK/apply.txt")), accuracy stays $deployed"
}
apply wrong_hash "invalid argument"
apply truncated "invalid argument"
apply crc "invalid argument"
apply nan "numeric error"
cp "$GENUINE" "$WORK/genuine.signed"
mosquitto_pub "${C[@]}" -u aggregator -P "$(pass aggregator)" -t fleet/global -r -f "$WORK/genuine.signed" || fail "publish"
"${M4[@]}" --mode apply --round-timeout 4 "${MQTT[@]}" --user 2 --password "$(pass 2)" \
  --client-id device-2-check > "$WORK/apply.txt" 2>&1 || fail "apply genuine: $(cat "$WORK/apply.txt")"
grep -q "applied round 2 refused 0" "$WORK/apply.txt" || fail "the genuine record was not applied: $(cat "$WORK/apply.txt")"
grep -q "accuracy $m4_acc" "$WORK/apply.txt" || fail "genuine record: $(cat "$WORK/apply.txt"), the fleet run had $m4_acc"
grep "m4 ram" "$WORK/apply.txt"
check_ram "$WORK/apply.txt"
echo "ok: the genuine record applies on the M4 (accuracy $m4_acc)"

# 3. The P-256 check on the firmware.
if [[ $SIGNATURE == p256 ]]; then
  "$BIN/edgefold-fleet-record" sign-p256 "$WORK/fleet.p256sk" "$WORK/unsigned.bin" "$WORK/p256.signed" &&
    "$BIN/edgefold-fleet-record" sign-p256 "$WORK/rogue.p256sk" "$WORK/unsigned.bin" "$WORK/rogue_p256.signed" || fail "sign-p256"
  cp "$GENUINE" "$WORK/ed25519.signed"
  cp "$WORK/unsigned.bin" "$WORK/unsigned.signed"
  M4+=(--p256-pubkey "$WORK/fleet.p256pk")
  GLOBAL=fleet/global/p256
  apply rogue_p256 "invalid argument"
  apply ed25519 "invalid argument"
  apply unsigned "invalid argument"
  mosquitto_pub "${C[@]}" -u aggregator -P "$(pass aggregator)" -t "$GLOBAL" -r -f "$WORK/p256.signed" || fail "publish"
  "${M4[@]}" --mode apply --round-timeout 4 "${MQTT[@]}" --user 2 --password "$(pass 2)" \
    --client-id device-2-check > "$WORK/apply.txt" 2>&1 || fail "apply p256: $(cat "$WORK/apply.txt")"
  grep -q "applied round 2 refused 0" "$WORK/apply.txt" || fail "the P-256-signed record was not applied: $(cat "$WORK/apply.txt")"
  grep -q "accuracy $m4_acc" "$WORK/apply.txt" || fail "P-256 record: $(cat "$WORK/apply.txt"), the fleet run had $m4_acc"
  grep "m4 ram" "$WORK/apply.txt"
  check_ram "$WORK/apply.txt"
  echo "ok: with the fleet's P-256 key the firmware applies only the record that key signed"
else
  echo "note: the firmware was built without Mbed TLS's source: signatures not checked on the M4"
fi
echo "OK: Cortex-M4 fleet device over its serial line"
