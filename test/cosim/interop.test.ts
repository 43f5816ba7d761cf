/**
 * Interoperability without our codec on the other side: examples/vds1_client.py, written from the protocol
 * tables with struct + zlib (as VDSim's cosim/protocol.py), drives `vils realtime` over loopback and decodes
 * its STATE; our codec decodes datagrams the Python code built, and Python decodes ours. Skipped (with a
 * message) when python3 is not installed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startRealtime } from '../../src/cli/realtime.js';
import { CmdFields, STATE_FIELDS, StateFields, decodeCmd, decodeState, encodeState, stateDoubles } from '../../src/cosim/vds1.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';
import { freePort } from './helpers/udp.js';

const run = promisify(execFile);
const CLIENT = join(PROJECT_ROOT, 'examples', 'vds1_client.py');
const HAVE_PYTHON = have('python');

const dir = mkdtempSync(join(tmpdir(), 'vils-interop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const vehicleYaml = join(dir, 'vehicle.yaml');
const tireYaml = join(dir, 'tire.yaml');
writeFileSync(vehicleYaml, 'mass: 1500.0\nwheelbase: 2.7\ncg_to_front: 1.2\ncg_to_rear: 1.5\nwheel_radius_nominal: 0.32\n');
writeFileSync(tireYaml, 'B_lat: 8.0\nC_lat: 1.3\n');

async function python(args: string[], input?: string): Promise<string> {
  if (input === undefined) return (await run('python3', [CLIENT, ...args], { timeout: 30_000 })).stdout;
  return new Promise((resolve, reject) => {
    const child = execFile('python3', [CLIENT, ...args], { timeout: 30_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin?.end(input);
  });
}

interface DriveSummary {
  sent: number;
  received: number;
  errors: Record<string, number>;
  vehicles: number[];
  first: Record<string, number>;
  last: Record<string, number>;
  seq_monotonic: boolean;
}

const silent = { log: () => undefined, err: () => undefined };

describe.skipIf(!HAVE_PYTHON)('Python client (struct + zlib) ↔ vils realtime', () => {
  it('drives the seed form over VDS1 v5 and decodes every STATE (exact length, zlib CRC)', async () => {
    const [cmdPort, statePort] = [await freePort(), await freePort()];
    const h = await startRealtime([vehicleYaml, tireYaml, `--cmd-port=${cmdPort}`, '--state-port', String(statePort), '--rate=200', '--quiet'], silent);
    try {
      const out = JSON.parse(await python(['drive', '--cmd-port', String(cmdPort), '--state-port', String(statePort), '--seconds', '1.5', '--throttle', '0.3', '--steer', '0.01'])) as DriveSummary;
      expect(out.errors).toEqual({});
      expect(out.received).toBeGreaterThan(10); // 300 on a quiet machine in 1.5 s; fewer when busy
      expect(out.seq_monotonic).toBe(true);
      expect(out.vehicles).toEqual([0]);
      expect([out.last.throttle_applied, out.last.steer_applied, out.last.brake_applied, out.last.wheel_radius]).toEqual([0.3, 0.01, 0, 0.32]);
      expect(out.last.vx).toBeGreaterThan(out.first.vx + 0.3);
      expect(h.server.counters().accepted).toBe(out.sent);
    } finally {
      await h.stop();
    }
    expect(await h.done).toBe(0);
  });

  it('legacy subscriber: with no state port the client gets STATE on its sending socket; --protocol=3 speaks v3', async () => {
    const cmdPort = await freePort();
    const h = await startRealtime([vehicleYaml, tireYaml, `--cmd-port=${cmdPort}`, `--state-port=${await freePort()}`, '--protocol=3', '--quiet'], silent);
    try {
      const out = JSON.parse(await python(['drive', '--cmd-port', String(cmdPort), '--state-port', '0', '--seconds', '0.8', '--throttle', '0.2', '--version', '3'])) as DriveSummary;
      expect(out.errors).toEqual({});
      expect(out.received).toBeGreaterThan(60);
      expect(out.last.vx).toBeGreaterThan(0);
      expect(h.server.counters().accepted).toBe(out.sent);
      const v5 = JSON.parse(await python(['drive', '--cmd-port', String(cmdPort), '--state-port', '0', '--seconds', '0.2', '--version', '5'])) as DriveSummary;
      expect(v5.received).toBe(0); // no negotiation: a v5 client is dropped by a v3 server
      expect(h.server.counters().drops.version).toBe(v5.sent);
    } finally {
      await h.stop();
    }
  });

  it('our codec decodes the datagrams the Python code builds (STATE v1–v5, CMD v1–v5)', async () => {
    const lines = (await python(['vectors'])).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown> & { hex: string; kind: string; version: number });
    expect(lines.length).toBe(10);
    for (const v of lines) {
      const buf = Buffer.from(v.hex, 'hex');
      if (v.kind === 'state') {
        const s = new StateFields();
        expect(decodeState(buf, buf.length, v.version, s)).toBeNull();
        expect([s.seq, s.vehicleId, s.timestamp]).toEqual([v.seq, v.vehicle_id, v.timestamp]);
        const fields = v.fields as Record<string, number>;
        expect(Object.keys(fields)).toEqual(STATE_FIELDS.slice(0, stateDoubles(v.version)));
        for (const [name, x] of Object.entries(fields)) expect(s.get(name as (typeof STATE_FIELDS)[number])).toBe(x);
      } else {
        const c = new CmdFields();
        expect(decodeCmd(buf, buf.length, v.version, c)).toBeNull();
        expect({ ...c }).toEqual({ seq: v.seq, vehicleId: v.vehicle_id, timestamp: v.timestamp, steer: v.steer, throttle: v.throttle, brake: v.brake, gear: v.gear, handbrake: v.handbrake, auxAccel: v.aux_accel, auxSpeed: v.aux_speed });
      }
    }
  });

  it('Python decodes the STATE our encoder writes, for every version', async () => {
    const hex: string[] = [];
    const expected: Record<string, number>[] = [];
    for (const version of [1, 2, 3, 4, 5]) {
      const s = new StateFields();
      s.seq = 77 + version;
      s.vehicleId = 2;
      s.timestamp = 9.5;
      const e: Record<string, number> = {};
      STATE_FIELDS.slice(0, stateDoubles(version)).forEach((name, i) => (e[name] = s.v[i] = version * 100 + i / 4));
      const buf = Buffer.alloc(512);
      hex.push(buf.subarray(0, encodeState(buf, s, version)).toString('hex'));
      expected.push({ version, seq: 77 + version, vehicle_id: version >= 4 ? 2 : 0, timestamp: 9.5, ...e });
    }
    const decoded = (await python(['decode'], `${hex.join('\n')}\n`)).trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>);
    expect(decoded).toEqual(expected);
  });
});
