#!/usr/bin/env bash
# The fleet's Mosquitto broker on loopback with TLS, one credential per device and an ACL
# (docs/fleet.md). Used by scripts/run-fleet-demo.sh and the fleet tests.
#   scripts/fleet-broker.sh setup DIR PORT DEVICES   CA and server certificate (openssl), a
#                                                    password per device (DIR/pass/<id>) and for
#                                                    the aggregator, the ACL, mosquitto.conf
#   scripts/fleet-broker.sh start DIR                starts mosquitto (pid in DIR/mosquitto.pid)
#   scripts/fleet-broker.sh stop DIR                 SIGTERM: the broker saves its sessions
#   scripts/fleet-broker.sh restart DIR
# Users: "aggregator" reads fleet/+/update and writes fleet/global; device <id> (user name
# "<id>") writes only fleet/<id>/update and reads only fleet/global.
set -euo pipefail
cmd="${1:?usage: fleet-broker.sh setup|start|stop|restart DIR [PORT DEVICES]}"
dir="${2:?DIR}"

wait_port() {   # PORT: until something listens on 127.0.0.1:PORT (10 s)
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "fleet-broker: nothing listens on 127.0.0.1:$1" >&2
  return 1
}

case "$cmd" in
  setup)
    port="${3:?PORT}"; devices="${4:?DEVICES}"
    mkdir -p "$dir/pass" "$dir/db"
    (
      cd "$dir"
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -keyout ca.key -out ca.crt -subj /CN=edgefold-fleet-ca 2>/dev/null
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout server.key -out server.csr -subj /CN=127.0.0.1 2>/dev/null
      printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > server.ext
      openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
        -extfile server.ext -out server.crt 2>/dev/null
      : > passwd
      for user in aggregator $(seq "$devices"); do
        openssl rand -hex 16 > "pass/$user"
        mosquitto_passwd -b passwd "$user" "$(cat "pass/$user")"
      done
      cat > acl <<ACL
user aggregator
topic read fleet/+/update
topic readwrite fleet/global
topic readwrite fleet/global/p256

pattern write fleet/%u/update
pattern read fleet/global
pattern read fleet/global/p256
ACL
      cat > mosquitto.conf <<CONF
per_listener_settings false
allow_anonymous false
password_file $PWD/passwd
acl_file $PWD/acl
persistence true
persistence_location $PWD/db/
autosave_interval 1
max_queued_messages 10000
user $(id -un)
listener $port 127.0.0.1
cafile $PWD/ca.crt
certfile $PWD/server.crt
keyfile $PWD/server.key
CONF
      echo "$port" > port
      chmod 600 passwd server.key ca.key
    )
    ;;
  start)
    mosquitto -c "$dir/mosquitto.conf" > "$dir/mosquitto.log" 2>&1 &
    echo $! > "$dir/mosquitto.pid"
    wait_port "$(cat "$dir/port")"
    ;;
  stop)
    if [[ -f "$dir/mosquitto.pid" ]]; then
      pid="$(cat "$dir/mosquitto.pid")"
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      rm -f "$dir/mosquitto.pid"
    fi
    ;;
  restart)
    "$0" stop "$dir"
    "$0" start "$dir"
    ;;
  *) echo "fleet-broker: unknown command $cmd" >&2; exit 2 ;;
esac
