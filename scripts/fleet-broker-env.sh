# The fleet's broker for a script: sourced by scripts/run-fleet-demo.sh and the fleet tests
# (tests/fleet/*.sh), so that each starts it the same way (scripts/fleet-broker.sh: Mosquitto on
# loopback, TLS, a credential per device, the ACL).
#   fleet_broker_up DIR DEVICES   a free loopback port, the broker set up in DIR and started;
#                                 sets FLEET_PORT, FLEET_MQTT (the fleet programs' --uri --ca)
#                                 and FLEET_MOSQ (mosquitto_pub/sub's -h -p --cafile -q 1)
#   fleet_broker_restart          stop (sessions saved) and start again
#   fleet_broker_down             stop; for the caller's EXIT trap (harmless when not up)
#   fleet_pass USER               USER's password ("aggregator" or a device id)
FLEET_BROKER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/fleet-broker.sh"
FLEET_BROKER_DIR=""

fleet_broker_up() {
  FLEET_BROKER_DIR="$1"
  FLEET_PORT="$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')" ||
    return 1
  "$FLEET_BROKER" setup "$FLEET_BROKER_DIR" "$FLEET_PORT" "$2" >/dev/null &&
    "$FLEET_BROKER" start "$FLEET_BROKER_DIR" || return 1
  FLEET_MQTT=(--uri "ssl://127.0.0.1:$FLEET_PORT" --ca "$FLEET_BROKER_DIR/ca.crt")
  FLEET_MOSQ=(-h 127.0.0.1 -p "$FLEET_PORT" --cafile "$FLEET_BROKER_DIR/ca.crt" -q 1)
}

fleet_broker_restart() { "$FLEET_BROKER" restart "$FLEET_BROKER_DIR"; }

fleet_broker_down() {
  [[ -z "$FLEET_BROKER_DIR" ]] || "$FLEET_BROKER" stop "$FLEET_BROKER_DIR" >/dev/null 2>&1 || true
}

fleet_pass() { cat "$FLEET_BROKER_DIR/pass/$1"; }
