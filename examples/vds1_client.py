#!/usr/bin/env python3
"""
A VDS1 co-simulation client, written from the protocol tables alone (stdlib only: struct + zlib + socket),
the way VDSim's cosim/protocol.py is. It talks to `vils realtime` (or to VDSim's vdsim_realtime) unchanged.

    python3 examples/vds1_client.py drive --cmd-port 7001 --state-port 7002 --seconds 5 --throttle 0.3
    python3 examples/vds1_client.py vectors          # JSON lines: datagrams this file builds (for interop tests)
    python3 examples/vds1_client.py decode < hex.txt # JSON lines: this file's decoding of hex datagrams

Wire format (little-endian, tightly packed; CRC-32 = zlib.crc32 over every byte before it):
  header 24 B  <IHHIId  magic 0x56445331, version, msg_type (1 CMD, 2 STATE), seq, vehicle_id (v4+; 0 before), timestamp
  CMD    76 B  header + <ddd steer_tire throttle brake + <iB3x gear handbrake + <dd aux_accel aux_speed + <I crc
  STATE        header + f64 fields (v1 24, v2 43, v3/v4 51, v5 53) + <I crc: 220 / 372 / 436 / 436 / 452 B
"""
import argparse
import json
import math
import select
import socket
import struct
import sys
import time
import zlib

MAGIC = 0x56445331
MSG_CMD = 1
MSG_STATE = 2
HEADER = struct.Struct("<IHHIId")
CMD_BODY = struct.Struct("<ddd" "iB3x" "dd")
CRC = struct.Struct("<I")
CMD_BYTES = HEADER.size + CMD_BODY.size + CRC.size  # 76

Q = ["fl", "fr", "rl", "rr"]
STATE_V1 = (["x", "y", "z", "roll", "pitch", "yaw", "vx", "vy", "vz", "roll_rate", "pitch_rate", "yaw_rate", "ax", "ay"]
            + ["wheel_spin_" + w for w in Q] + ["steer_applied", "wheel_radius"] + ["Fz_" + w for w in Q])
STATE_V2 = (["rack_torque"] + ["slip_ratio_" + w for w in Q] + ["slip_angle_" + w for w in Q] + ["susp_" + w for w in Q]
            + ["m_ax", "m_ay", "m_wz", "m_steer", "m_gnss_x", "m_gnss_y"])
STATE_V3 = ["Fx_" + w for w in Q] + ["Fy_" + w for w in Q]
STATE_V5 = ["throttle_applied", "brake_applied"]


def state_fields(version):
    f = list(STATE_V1)
    if version >= 2:
        f += STATE_V2
    if version >= 3:
        f += STATE_V3
    if version >= 5:
        f += STATE_V5
    return f


def state_bytes(version):
    return HEADER.size + 8 * len(state_fields(version)) + CRC.size


def _seal(body):
    return body + CRC.pack(zlib.crc32(body) & 0xFFFFFFFF)


def encode_cmd(seq, steer, throttle, brake, gear=1, handbrake=0, aux_accel=float("nan"), aux_speed=float("nan"),
               vehicle_id=0, version=5, timestamp=None):
    ts = time.time() if timestamp is None else timestamp
    vid = vehicle_id if version >= 4 else 0
    return _seal(HEADER.pack(MAGIC, version, MSG_CMD, seq, vid, ts)
                 + CMD_BODY.pack(steer, throttle, brake, gear, handbrake, aux_accel, aux_speed))


def _header(data, version, msg_type):
    """The header fields after the magic / version / type checks (ValueError names the failed one)."""
    magic, ver, mtype, seq, vid, ts = HEADER.unpack_from(data, 0)
    if magic != MAGIC:
        raise ValueError("magic")
    if ver != version:
        raise ValueError("version")
    if mtype != msg_type:
        raise ValueError("type")
    return ver, seq, vid, ts


def _crc_ok(data, end):
    return CRC.unpack_from(data, end)[0] == zlib.crc32(data[:end]) & 0xFFFFFFFF


def decode_cmd(data, version=5):
    """At least 76 bytes, then magic / version / type, then the CRC (as VDSim's C++ decode_cmd)."""
    if len(data) < CMD_BYTES:
        raise ValueError("short")
    ver, seq, vid, ts = _header(data, version, MSG_CMD)
    if not _crc_ok(data, 72):
        raise ValueError("crc")
    steer, throttle, brake, gear, handbrake, aux_accel, aux_speed = CMD_BODY.unpack_from(data, HEADER.size)
    return {"version": ver, "seq": seq, "vehicle_id": vid if ver >= 4 else 0, "timestamp": ts, "steer": steer,
            "throttle": throttle, "brake": brake, "gear": gear, "handbrake": handbrake,
            "aux_accel": aux_accel, "aux_speed": aux_speed}


def encode_state(values, seq, version=5, vehicle_id=0, timestamp=0.0):
    names = state_fields(version)
    vid = vehicle_id if version >= 4 else 0
    body = HEADER.pack(MAGIC, version, MSG_STATE, seq, vid, timestamp)
    body += struct.pack("<%dd" % len(names), *[values.get(n, 0.0) for n in names])
    return _seal(body)


def decode_state(data, version=None):
    """Exact length for the version, CRC first, then magic / version / type (as VDSim's protocol.py)."""
    if len(data) < HEADER.size + CRC.size:
        raise ValueError("short")
    ver = struct.unpack_from("<H", data, 4)[0] if version is None else version
    if ver not in (1, 2, 3, 4, 5):
        raise ValueError("version")
    if len(data) != state_bytes(ver):
        raise ValueError("length")
    if not _crc_ok(data, len(data) - 4):
        raise ValueError("crc")
    ver, seq, vid, ts = _header(data, ver, MSG_STATE)
    names = state_fields(ver)
    vals = struct.unpack_from("<%dd" % len(names), data, HEADER.size)
    out = {"version": ver, "seq": seq, "vehicle_id": vid if ver >= 4 else 0, "timestamp": ts}
    out.update(zip(names, vals))
    return out


def _jsonable(d):
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}


def cmd_vectors(_args):
    """Datagrams built by this file, with the values that went in (one JSON object per line)."""
    for version in (1, 2, 3, 4, 5):
        names = state_fields(version)
        values = {n: round(1000.0 * version + i * 1.25 - 7.5, 6) for i, n in enumerate(names)}
        data = encode_state(values, seq=1000 + version, version=version, vehicle_id=3, timestamp=123.25 + version)
        print(json.dumps({"kind": "state", "version": version, "seq": 1000 + version, "vehicle_id": 3 if version >= 4 else 0,
                          "timestamp": 123.25 + version, "fields": values, "hex": data.hex()}))
        c = encode_cmd(seq=2000 + version, steer=-0.05 * version, throttle=0.1 * version, brake=0.02, gear=-1 if version == 2 else 1,
                       handbrake=1 if version == 3 else 0, aux_accel=1.5, aux_speed=20.0, vehicle_id=7, version=version, timestamp=55.5)
        print(json.dumps({"kind": "cmd", "version": version, "seq": 2000 + version, "vehicle_id": 7 if version >= 4 else 0,
                          "timestamp": 55.5, "steer": -0.05 * version, "throttle": 0.1 * version, "brake": 0.02,
                          "gear": -1 if version == 2 else 1, "handbrake": 1 if version == 3 else 0,
                          "aux_accel": 1.5, "aux_speed": 20.0, "hex": c.hex()}))
    return 0


def cmd_decode(args):
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        data = bytes.fromhex(line)
        try:
            mtype = struct.unpack_from("<H", data, 6)[0] if len(data) >= 8 else 0
            d = decode_cmd(data, args.version) if mtype == MSG_CMD else decode_state(data)
            print(json.dumps(_jsonable(d)))
        except ValueError as e:
            print(json.dumps({"error": str(e)}))
    return 0


def cmd_drive(args):
    """Send CMD at --rate for --seconds; receive and decode STATE; print a JSON summary."""
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tx.bind(("0.0.0.0", 0))
    # The server also sends STATE back to the address a CMD came from (legacy subscriber logic), so with
    # --state-port 0 the sending socket is the receiving one; otherwise only the state port is read.
    socks = [tx]
    if args.state_port:
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rx.bind(("0.0.0.0", args.state_port))
        socks = [rx]
    period = 1.0 / args.rate
    t0 = time.monotonic()
    nxt = t0
    # The server drops a CMD whose seq is not above the last one it accepted for the vehicle (no wrap-around, no
    # reset), so a restarted client must not count from 1 again: start from the clock unless told otherwise.
    seq = args.seq_start if args.seq_start is not None else int(time.time() * 100) & 0x3FFFFFFF
    sent = 0
    states = []
    errors = {}
    seqs = []
    while True:
        now = time.monotonic()
        if now - t0 >= args.seconds:
            break
        if now >= nxt:
            seq += 1
            tx.sendto(encode_cmd(seq, args.steer, args.throttle, args.brake, vehicle_id=args.vehicle, version=args.version),
                      (args.host, args.cmd_port))
            sent += 1
            nxt += period
        ready, _, _ = select.select(socks, [], [], max(0.0, min(nxt, t0 + args.seconds) - time.monotonic()))
        for s in ready:
            data, _ = s.recvfrom(2048)
            try:
                st = decode_state(data, args.version)
                states.append(st)
                seqs.append(st["seq"])
            except ValueError as e:
                errors[str(e)] = errors.get(str(e), 0) + 1
    keep = ["seq", "vehicle_id", "timestamp", "x", "vx", "yaw", "steer_applied", "throttle_applied", "brake_applied", "wheel_radius"]
    pick = (lambda st: {k: st.get(k) for k in keep}) if states else None
    print(json.dumps({
        "sent": sent, "received": len(states), "errors": errors,
        "vehicles": sorted({st["vehicle_id"] for st in states}),
        "first": pick(states[0]) if states else None, "last": pick(states[-1]) if states else None,
        "seq_monotonic": all(b > a for a, b in zip(seqs, seqs[1:])),
    }))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("drive", help="send CMD, receive STATE")
    d.add_argument("--host", default="127.0.0.1")
    d.add_argument("--cmd-port", type=int, default=7001)
    d.add_argument("--state-port", type=int, default=7002, help="0: receive on the sending socket (legacy subscriber)")
    d.add_argument("--rate", type=float, default=100.0)
    d.add_argument("--seconds", type=float, default=2.0)
    d.add_argument("--throttle", type=float, default=0.0)
    d.add_argument("--brake", type=float, default=0.0)
    d.add_argument("--steer", type=float, default=0.0)
    d.add_argument("--vehicle", type=int, default=0)
    d.add_argument("--version", type=int, default=5)
    d.add_argument("--seq-start", type=int, default=None, help="first seq - 1 (default: from the clock)")
    sub.add_parser("vectors", help="print datagrams built by this file")
    dec = sub.add_parser("decode", help="decode hex datagrams from stdin")
    dec.add_argument("--version", type=int, default=5)
    args = p.parse_args()
    return {"drive": cmd_drive, "vectors": cmd_vectors, "decode": cmd_decode}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
