#!/usr/bin/env python3
"""An external simulator joining the VILS time conductor (Python standard library only).

It speaks the asset protocol of src/time/asset-protocol.ts over UDP, one JSON object per datagram:
register with a name and a step, then count up by the Hakoniwa asset rule

    T' = T + step;  if T' <= Tc: simulate [T, T'] and report T'   (progress)
                    else:        wait for the server's Tc          (retain)

While it waits it re-sends its last report every heartbeat_ms, which both proves it is alive (a silent asset
is removed after timeout_ms) and recovers a lost Tc datagram. Times are integer microseconds.

    python3 examples/time_asset.py --name py-plant --step-ms 10 --until-s 5 [--host 127.0.0.1 --port 47800]
                                   [--work-ms 0.5] [--log]

--work-ms stands in for the simulator's own computation per step. --log prints one JSON line per step
({"t_us":..,"tc_us":..}) so that a caller can check the asset's side of the invariants. Exit status 0 once
the asset has simulated up to --until-s and left, 1 on a refused registration, 2 on a server that stays silent
(--silence-s, default 10 s; with no server at the address it says so on stderr after 2 s, with how to start one).
"""
import argparse
import json
import socket
import sys
import time

HINT_S = 2.0  # a silent server gets a hint on stderr after this long (and the asset keeps trying)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--host', default='127.0.0.1')
    ap.add_argument('--port', type=int, default=47800)
    ap.add_argument('--name', default='py-asset')
    ap.add_argument('--step-ms', type=float, default=10.0)
    ap.add_argument('--until-s', type=float, default=5.0)
    ap.add_argument('--work-ms', type=float, default=0.0)
    ap.add_argument('--silence-s', type=float, default=10.0, help='give up when the server is silent this long')
    ap.add_argument('--log', action='store_true')
    args = ap.parse_args()

    step_us = round(args.step_ms * 1000)
    until_us = round(args.until_s * 1e6)
    server = (args.host, args.port)
    sock = socket.socket(socket.AF_INET6 if ':' in args.host else socket.AF_INET, socket.SOCK_DGRAM)

    def send(msg: dict) -> None:
        sock.sendto(json.dumps(dict(v=1, **msg)).encode(), server)

    def receive(timeout_s: float):
        sock.settimeout(max(timeout_s, 1e-4))
        try:
            data, _ = sock.recvfrom(2048)
        except socket.timeout:
            return None
        try:
            return json.loads(data)
        except ValueError:
            return None

    where = f'{args.host}:{args.port}'
    port_flag = '' if args.port == 47800 else f' --port {args.port}'
    how_to_start = (f'Start a VILS server with this asset port: `npx vils serve --asset-port {args.port}` '
                    f'(or `npm start -- --asset-port {args.port}`), or `npx vils run <scenario.yaml> --set time.asset_port={args.port}`; '
                    f'a server on another machine: --host <its address>{port_flag}')

    def register() -> dict:
        """Registers (again) and returns the server's answer; a lost datagram is simply re-sent. A server that
        stays silent: a hint after HINT_S, exit 2 after --silence-s (UDP has no connection to fail fast on)."""
        start = time.monotonic()
        deadline = start + args.silence_s
        hinted = False
        while time.monotonic() < deadline:
            if not hinted and time.monotonic() - start >= min(HINT_S, args.silence_s / 2):
                hinted = True
                print(f'{args.name}: no VILS time server answers at {where} (UDP) yet; still trying for '
                      f'{args.silence_s:g} s in all. {how_to_start}', file=sys.stderr, flush=True)
            send(dict(type='register', name=args.name, step_us=step_us, kind='simulated'))
            m = receive(0.2)
            if m is None or m.get('type') == 'tc':
                continue
            if m.get('type') == 'registered' and m.get('name') == args.name:
                return m
            if m.get('type') == 'error':
                print(f"{args.name}: registration refused: {m.get('reason')} {m.get('detail')}", file=sys.stderr)
                sys.exit(1)
        print(f'{args.name}: no VILS time server answered at {where} (UDP) within {args.silence_s:g} s; giving up. '
              f'{how_to_start}', file=sys.stderr, flush=True)
        sys.exit(2)

    reg = register()
    t, tc, seq = reg['t_us'], reg['tc_us'], -1
    heartbeat_s = reg['heartbeat_ms'] / 1000
    held = 0
    heard = time.monotonic()
    while t + step_us <= until_us:
        if t + step_us <= tc:  # progress
            if args.work_ms > 0:
                time.sleep(args.work_ms / 1000)
            t += step_us
            send(dict(type='report', name=args.name, t_us=t, held=held))
            if args.log:
                print(json.dumps({'t_us': t, 'tc_us': tc}), flush=True)
            continue
        held += 1  # retain: wait for Tc, re-sending the report as a heartbeat
        m = receive(heartbeat_s)
        if m is None:
            if time.monotonic() - heard > args.silence_s:
                print(f'{args.name}: the server at {where} has been silent for {args.silence_s:g} s; giving up', file=sys.stderr)
                return 2
            send(dict(type='report', name=args.name, t_us=t, held=held))
            continue
        heard = time.monotonic()
        kind = m.get('type')
        if kind == 'tc' and isinstance(m.get('tc_us'), int) and m.get('seq', 0) > seq:
            seq = m['seq']
            tc = max(tc, m['tc_us'])
        elif kind == 'removed' or (kind == 'error' and m.get('reason') == 'not_registered'):
            reg = register()  # dropped by the server (we were silent too long): rejoin at its current time
            t, tc = reg['t_us'], reg['tc_us']
    send(dict(type='leave', name=args.name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
