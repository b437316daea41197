#!/usr/bin/python3
"""The host bridge of a Cortex-M4 fleet device (examples/mcu/fleet_main.cc, docs/fleet.md).

Starts the firmware under QEMU (mps2-an386) with its UART0 on a loopback TCP socket, and
connects that serial line to the broker with the device's own credential: the device's update
records go to fleet/<id>/update, the global records of fleet/global (fleet/global/p256 with
--p256-pubkey) go to the firmware, which checks and applies them itself (the bridge forwards
bytes, it checks nothing). The device's
shard (the .npy files of examples/digits/make_fleet_shards.py) is streamed to the firmware over
the same line. Same modes, arguments and output lines as edgefold-fleet-device:

  m4_bridge.py --elf mcu_fleet_device.elf [--machine mps2-an386] --model M.efb --data DIR --id N
               --mode deployed|local|central|fleet|apply [--devices N] [--rounds R]
               [--uri ssl://127.0.0.1:P --ca CA --user N --password-file F]
               [--password P] [--client-id C] [--round-timeout S] [--round-delay-ms T]
               [--resend-after-s S] [--resend K] [--log QEMU-LOG] [--p256-pubkey K.p256pk]
               [--state DIR]

--model is the host's copy of the deployed .efb: the firmware's model hash must match it.
--p256-pubkey provisions the fleet's ECDSA P-256 key into a firmware built with Mbed TLS's
source: it then applies only global records carrying that key's signature.
--state DIR: the bridge keeps the device's state there as edgefold-fleet-device does
(fleet/device_state.h: the rounds sent and applied, the applied global record); restarted, it
hands that record to the firmware, which checks and applies it, and sends only the rounds the
device had not sent.
--mode apply: waits for global records and reports each (applied or refused with the
firmware's message) until one applies or --round-timeout passes.
Prints "device <id> <mode> accuracy <a>" and, in fleet mode, "device <id> fleet rounds ..."; in
fleet and apply modes the firmware's RAM line ("device <id> m4 ram ...") at the end.
"""
import argparse
import os
import queue
import socket
import struct
import subprocess
import sys
import time

import numpy as np


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


class Firmware:
    """The firmware under QEMU and its UART0 (frames: type, u16 length, payload)."""

    def __init__(self, elf, machine, log_path):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        self.log = open(log_path, "w") if log_path else subprocess.DEVNULL
        self.qemu = subprocess.Popen(
            ["qemu-system-arm", "-M", machine, "-nographic", "-monitor", "none",
             "-serial", f"tcp:127.0.0.1:{port},server=on,wait=on",
             "-semihosting-config", "enable=on,target=native", "-kernel", elf],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.time() + 30
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
                break
            except OSError:
                if time.time() > deadline or self.qemu.poll() is not None:
                    raise RuntimeError("m4-bridge: QEMU did not open the serial line")
                time.sleep(0.05)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _read(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise RuntimeError("m4-bridge: the firmware closed its serial line")
            out += chunk
        return out

    def _reply(self):
        head = self._read(3)
        body = self._read(struct.unpack("<H", head[1:])[0])
        return chr(head[0]), body

    def call(self, kind, payload=b""):
        self.sock.sendall(kind.encode() + struct.pack("<H", len(payload)) + payload)
        return self._reply()

    def stream(self, kind, payloads):
        """Frames of one kind sent back to back (the line's flow control paces them), then
        their replies read; raises on the first refusal."""
        frames = [kind.encode() + struct.pack("<H", len(p)) + p for p in payloads]
        self.sock.sendall(b"".join(frames))
        errors = [body for k, body in (self._reply() for _ in frames) if k != kind]
        if errors:
            raise RuntimeError(f"m4-bridge: '{kind}' refused: {errors[0].decode(errors='replace')}")

    def close(self):
        try:
            kind, body = self.call("Q")
            ram = body.decode(errors="replace") if kind == "Q" else ""
        except (RuntimeError, OSError):
            ram = ""
        try:
            self.qemu.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.qemu.kill()
        self.sock.close()
        return ram

    # --- the device's operations ---
    def reset(self):
        assert self.call("R")[0] == "R"

    def adapt(self, images):
        self.stream("A", [np.ascontiguousarray(img, "<f4").tobytes() for img in images])

    def accuracy(self, x, y):
        self.call("C")
        self.stream("E", [bytes([int(label)]) + np.ascontiguousarray(img, "<f4").tobytes()
                          for img, label in zip(x, y)])
        correct, seen = struct.unpack("<II", self.call("C")[1])
        return correct / seen if seen else -1.0

    def export(self, round_, origin):
        kind, body = self.call("X", struct.pack("<II", round_, origin))
        if kind != "U":
            raise RuntimeError(f"m4-bridge: export refused: {body.decode(errors='replace')}")
        return body

    def apply(self, record):
        """(True, round) or (False, the firmware's message)."""
        kind, body = self.call("G", record)
        if kind == "K":
            return True, struct.unpack("<I", body)[0]
        return False, body.decode(errors="replace")


def load_state(path):
    """(sent, applied, the applied global record) of fleet/device_state.h; (0, 0, b"") when
    there is none. Raises ValueError naming the file when it is malformed."""
    text = os.path.join(path, "state.txt")
    if not os.path.exists(text):
        return 0, 0, b""
    words = open(text).read().split()
    if len(words) != 6 or words[:2] != ["edgefold-device-state", "1"] or words[2] != "sent" \
            or words[4] != "applied" or not words[3].isdigit() or not words[5].isdigit():
        raise ValueError(f"device state: {text}: expected 'edgefold-device-state 1 sent <S> applied <A>'")
    sent, applied = int(words[3]), int(words[5])
    record = b""
    if applied:
        binary = os.path.join(path, "global.bin")
        record = open(binary, "rb").read() if os.path.exists(binary) else b""
        if not record:
            raise ValueError(f"device state: {binary}: missing or empty (applied {applied})")
    return sent, applied, record


def save_state(path, sent, applied, record=None):
    """Writes global.bin (when given) then state.txt, each to a temporary name renamed."""
    os.makedirs(path, exist_ok=True)
    files = ([("global.bin", record)] if record is not None else []) + \
        [("state.txt", f"edgefold-device-state 1 sent {sent} applied {applied}\n".encode())]
    for name, data in files:
        tmp = os.path.join(path, name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(path, name))


def record_round(payload):
    return struct.unpack_from("<I", payload, 16)[0] if len(payload) >= 20 else 0


def main():
    ap = argparse.ArgumentParser()
    for name in ("elf", "model", "data", "mode", "uri", "ca", "user", "password", "password-file",
                 "client-id", "topic", "log", "state"):
        ap.add_argument("--" + name)
    ap.add_argument("--machine", default="mps2-an386")
    for name, default in (("id", 1), ("devices", 1), ("rounds", 3), ("round-timeout", 60),
                          ("round-delay-ms", 0), ("resend-after-s", 10), ("resend", 0),
                          ("connect-timeout", 30)):
        ap.add_argument("--" + name, type=int, default=default)
    ap.add_argument("--pubkey")  # accepted for edgefold-fleet-device's command line; unused here
    ap.add_argument("--p256-pubkey")  # the fleet's P-256 key (hex file), provisioned into the firmware
    a = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    dev = a.id
    prefix = os.path.join(a.data, f"device_{dev}")
    adapt = np.load(prefix + "_adapt_x.npy")
    ex, ey = np.load(prefix + "_eval_x.npy"), np.load(prefix + "_eval_y.npy")
    fw = Firmware(a.elf, a.machine, a.log)
    try:
        kind, hello = fw.call("H")
        lo, hi, record_bytes = struct.unpack("<III", hello)
        want = fnv1a64(open(a.model, "rb").read())
        if (hi << 32 | lo) != want:
            print(f"m4-bridge: device {dev}: the firmware's model hash {hi << 32 | lo:016x} is not "
                  f"{a.model}'s {want:016x}", file=sys.stderr)
            return 1
        if a.p256_pubkey:
            kind, body = fw.call("P", bytes.fromhex(open(a.p256_pubkey).read().strip()))
            if kind != "P":
                print(f"m4-bridge: device {dev}: the firmware takes no P-256 key "
                      f"({body.decode(errors='replace')}): built without Mbed TLS's source",
                      file=sys.stderr)
                return 1
        batch = 10
        batches = len(adapt) // batch
        if a.mode == "local":
            fw.reset()
            fw.adapt(adapt[:batches * batch])
        elif a.mode == "central":
            fw.reset()
            for k in range(1, a.devices + 1):
                other = np.load(os.path.join(a.data, f"device_{k}_adapt_x.npy"))
                fw.adapt(other[:len(other) // batch * batch])
        elif a.mode in ("fleet", "apply"):
            import paho.mqtt.client as mqtt
            inbox = queue.Queue()
            acked = set()
            client = mqtt.Client(client_id=a.client_id or f"device-{dev}", clean_session=False)
            password = a.password if a.password is not None else open(a.password_file).read().strip()
            client.username_pw_set(a.user or str(dev), password)
            client.tls_set(ca_certs=a.ca)
            client.on_message = lambda c, u, m: inbox.put((m.topic, bytes(m.payload)))
            # With a P-256 key the firmware takes the P-256-signed copies (edgefold-fleet-aggregator
            # --p256-secret-key), else the Ed25519-signed records.
            global_topic = "fleet/global/p256" if a.p256_pubkey else "fleet/global"
            connects = []

            def on_connect(c, u, f, rc):
                connects.append(rc)
                c.subscribe(global_topic, qos=1)
            client.on_connect = on_connect
            client.on_publish = lambda c, u, mid: acked.add(mid)
            host, port = a.uri.split("://")[1].rsplit(":", 1)
            client.connect(host, int(port))
            client.loop_start()
            topic = a.topic or f"fleet/{dev}/update"
            applied, refused, sent, kept = 0, 0, 0, b""
            if a.mode == "fleet" and a.state:
                # Resume: the saved global record handed to the firmware, which checks it again.
                try:
                    sent, saved_round, kept = load_state(a.state)
                except (ValueError, OSError) as e:
                    print(f"device {dev}: {e}; starting from round 1")
                    saved_round = 0
                if saved_round:
                    ok, what = fw.apply(kept)
                    if ok:
                        applied = what
                    else:
                        print(f"device {dev}: the saved global record is refused ({what}); starting from round 1")
                        sent, kept = 0, b""
                if sent or applied:
                    print(f"device {dev} resumed: sent {sent}, applied {applied} (its global record applied again)")

            def publish(record):
                deadline = time.time() + 60
                while time.time() < deadline:
                    info = client.publish(topic, record, qos=1)
                    end = time.time() + 5
                    while time.time() < end and info.mid not in acked:
                        time.sleep(0.05)
                    if info.mid in acked:
                        return
                raise RuntimeError(f"m4-bridge: device {dev}: the broker did not acknowledge")

            def await_global(round_, timeout_s):
                nonlocal applied, refused, kept
                deadline = time.time() + timeout_s
                while applied < round_ and time.time() < deadline:
                    try:
                        t, payload = inbox.get(timeout=0.5)
                    except queue.Empty:
                        continue
                    if t != global_topic or (len(payload) >= 20 and record_round(payload) <= applied):
                        continue
                    ok, what = fw.apply(payload)
                    if ok:
                        applied, kept = max(applied, what), payload
                    else:
                        refused += 1
                        print(f"device {dev} refused a global record: {what}")

            if a.mode == "apply":
                await_global(1, a.round_timeout)
                print(f"device {dev} applied round {applied} refused {refused}")
            for r in range(applied + 1, a.rounds + 1 if a.mode == "fleet" else 1):
                if r > 1:
                    time.sleep(a.round_delay_ms / 1000)
                begin, end = batches * (r - 1) // a.rounds, batches * r // a.rounds
                fw.reset()
                fw.adapt(adapt[begin * batch:end * batch])
                record = fw.export(r, dev)
                if sent < r:
                    for _ in range(1 + a.resend):  # --resend K: K more copies, as QoS 1 redeliveries
                        publish(record)
                    print(f"device {dev} sent round {r} ({len(record)} bytes)")
                    sent = r
                    if a.state:
                        save_state(a.state, sent, applied)
                else:
                    print(f"device {dev} round {r}: sent before the restart, awaiting its global record")
                waited = 0
                while applied < r and waited < a.round_timeout:
                    if waited > 0:
                        publish(record)
                        print(f"device {dev} resent round {r} (no global record after {waited} s)")
                    step = min(a.resend_after_s, a.round_timeout - waited)
                    await_global(r, step)
                    waited += step
                if applied < r:
                    print(f"m4-bridge: device {dev}: no global record for round {r}", file=sys.stderr)
                    return 1
                if a.state:
                    save_state(a.state, sent, applied, kept)
            if a.mode == "fleet":
                print(f"device {dev} fleet rounds {applied} reconnects {max(len(connects) - 1, 0)} refused {refused} "
                      f"record {record_bytes} bytes (Cortex-M4 under QEMU)")
            client.loop_stop()
            client.disconnect()
        elif a.mode != "deployed":
            print(f"m4-bridge: unknown mode '{a.mode}'", file=sys.stderr)
            return 2
        acc = fw.accuracy(ex[:len(ex) // batch * batch], ey[:len(ey) // batch * batch])
        print(f"device {dev} {a.mode} accuracy {acc:.4f}")
        return 0 if acc >= 0 else 1
    finally:
        ram = fw.close()
        if ram and a.mode in ("fleet", "apply"):
            print(f"device {dev} m4 {ram}")


if __name__ == "__main__":
    sys.exit(main())
