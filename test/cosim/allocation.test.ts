/**
 * The co-simulation hot path allocates nothing of its own. Measured in a fresh process on TypeScript's own emit
 * (vitest's transform changes V8's inlining), with the socket replaced by a no-op so that only our code is
 * counted (Node's dgram allocates per send whatever we do):
 *  - the codec (encode / decode CMD and STATE, the receiver's routing): < 4 B per datagram;
 *  - a tick of ours around the plant: a CMD decoded, routed and latched, the watchdog, the STATE frame, three
 *    binary channels encoded into the router's reused buffers: < 48 B per tick — room for the tick's f64
 *    timestamp boxed where it crosses a call V8 did not inline (16 B each), none for a Buffer, DataView, array
 *    or closure (≥ 56 B each).
 * The plant's own SimSession.tick() is covered by test/plant/allocation.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { transpile } from './helpers/transpile.js';

const code = transpile(['src/cosim/vehicle.ts', 'src/cosim/vds1.ts', 'src/cosim/comms/router.ts', 'src/cosim/comms/config.ts']);
afterAll(() => code.remove());

const PROBE = `
import { CosimVehicle } from './src/cosim/vehicle.js';
import { CmdFields, StateFields, Vds1CmdReceiver, decodeCmd, decodeState, encodeCmd, encodeState } from './src/cosim/vds1.js';
import { CommsRouter } from './src/cosim/comms/router.js';
import { parseComms } from './src/cosim/comms/config.js';
import { loadTemplates } from './src/cosim/comms/templates/registry.js';
import { FlatGround } from './src/plant/ground/flat.js';
import { vehicleParams } from './src/plant/params/vehicle.js';
import { tireParams } from './src/plant/params/tire.js';
await loadTemplates();
const t = tireParams();
const spec = { id: 0, level: 'L2', vehicle: vehicleParams(), tires: [t, t, t, t], x0: 0, y0: 0, z0: 0, yaw0: 0, vx0: 20, control: 'external', pathLookahead: 8, label: 'probe' };
const v = new CosimVehicle(spec, new FlatGround(1), { dt: 0.001, sensorDelayS: 0, watchdog: { cmdTimeoutS: 0.1 }, now: 0 });
v.session.tick(0.001);
const rx = new Vds1CmdReceiver(5, (id) => (id === 0 ? v : undefined));
const to = [{ ip: '127.0.0.1', port: 9 }];
const router = new CommsRouter(parseComms({ channels: [
  { source: '0.state', template: 'vds1_state', to },
  { source: '0.cmd', template: 'vds1_cmd', to },
  { source: '0.sensor.imu', template: 'imu', to },
] }, 'probe'), [v], 5);
// a socket completes every send (the router frees the buffer in the callback)
const sock = { send(_b, _o, _l, _p, _a, cb) { cb(null); } };
const cmdBuf = Buffer.alloc(76);
const stateBuf = Buffer.alloc(512);
const cmd = new CmdFields();
const back = new StateFields();
const fields = new CmdFields();
cmd.throttle = 0.15;
cmd.steer = 0.02;
const clock = new Float64Array(1); // the probe's own time, kept out of the heap
let seq = 0;
let accepted = 0;
let frames = 0;

function codec(i) {
  cmd.seq = i + 1;
  encodeCmd(cmdBuf, cmd, 5);
  if (decodeCmd(cmdBuf, 76, 5, fields) !== null) throw new Error('cmd round trip');
  const n = encodeState(stateBuf, v.frame, 5);
  if (decodeState(stateBuf, n, 5, back) !== null) throw new Error('state round trip');
  if (rx.receive(cmdBuf, 76) !== null) accepted++;
}

function tick(i) {
  clock[0] += 0.001;
  const now = clock[0];
  cmd.seq = i + 1;
  encodeCmd(cmdBuf, cmd, 5);
  const target = rx.receive(cmdBuf, 76);
  if (target) {
    target.applyCmd(rx.cmd, now);
    accepted++;
  }
  v.prepareTick(now, 0);
  v.fillFrame();
  seq = router.emit(sock, seq, now, 0);
  frames++;
}

function measure(f, offset) {
  for (let i = 0; i < 30000; i++) f(offset + i);
  gc();
  const h0 = process.memoryUsage().heapUsed;
  for (let i = 30000; i < 230000; i++) f(offset + i);
  return (process.memoryUsage().heapUsed - h0) / 200000;
}
const codecBytes = measure(codec, 0);
const tickBytes = measure(tick, 1000000);
console.log(JSON.stringify({ codecBytes, tickBytes, accepted, frames: router.tx.reduce((a, c) => a + c.frames, 0), throttle: v.session.latchedCommand.throttle }));
`;

describe('allocation-free co-simulation hot path', () => {
  it('codec < 4 B per datagram; our part of a 1 kHz tick (decode, route, watchdog, frame, 3 binary channels) < 48 B', () => {
    const r = spawnSync(process.execPath, ['--expose-gc', code.probe('probe.mjs', PROBE)], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { codecBytes: number; tickBytes: number; accepted: number; frames: number; throttle: number };
    expect(out.accepted).toBe(460000); // the probe really decoded and routed every command
    expect(out.frames).toBe(3 * 230000);
    expect(out.throttle).toBe(0.15);
    expect(out.codecBytes).toBeLessThan(4);
    expect(out.tickBytes).toBeLessThan(48);
    console.log(`[alloc] codec ${out.codecBytes.toFixed(2)} B/datagram, tick ${out.tickBytes.toFixed(1)} B/tick`);
  });
});
