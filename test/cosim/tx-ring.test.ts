/**
 * The send-buffer ring under a burst: a simulated ego in `vils serve --scenario` ticks its plant 20 times (5 ms
 * steps) for each 0.1 s scene step, and the comms router encodes each tick's STATE synchronously, before Node
 * has handed the first datagram to the kernel. With a fixed ring of 8 buffers, frames 9–20 overwrote buffers
 * still queued: a controller received the last 8 frames of each burst two or three times and never the others
 * (found by test/server/serve-scenario.test.ts). A buffer is now handed out again only once its sends completed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseComms } from '../../src/cosim/comms/config.js';
import { CommsRouter } from '../../src/cosim/comms/router.js';
import { loadTemplates } from '../../src/cosim/comms/templates/registry.js';
import { senderSocket, closeSocket, TxRing } from '../../src/cosim/udp.js';
import { CosimVehicle } from '../../src/cosim/vehicle.js';
import { FlatGround, tireParams, vehicleParams } from '../../src/plant/index.js';
import type { Socket } from 'node:dgram';
import { readSpecState } from './helpers/spec-vectors.js';
import { UdpPeer } from './helpers/udp.js';

describe('TxRing', () => {
  it('never hands out a buffer a queued send holds: it grows for a burst, then rotates without allocating', () => {
    const ring = new TxRing(64, 8);
    const seen = new Set<Buffer>();
    for (let i = 0; i < 20; i++) {
      const b = ring.next();
      expect(seen.has(b)).toBe(false);
      seen.add(b);
      ring.hold(2); // two destinations
    }
    expect([ring.size, ring.grown]).toEqual([20, 12]);
    for (let i = 0; i < 40; i++) ring.sent();
    // every send out: a second burst of 20 reuses the 20 buffers
    const again = new Set<Buffer>();
    for (let i = 0; i < 20; i++) {
      again.add(ring.next());
      ring.hold(1);
    }
    expect(again).toEqual(seen);
    expect(ring.grown).toBe(12);
  });

  it('frees in the order the sends were queued; a buffer never held (an oversize frame) is free', () => {
    const ring = new TxRing(16, 3);
    const a = ring.next();
    ring.hold(1);
    const b = ring.next(); // encoded, not sent
    const c = ring.next();
    ring.hold(1);
    ring.sent(); // a's send is out
    expect(ring.next()).toBe(a);
    ring.hold(1); // queued now: c, then a
    expect(ring.next()).toBe(b);
    ring.sent(); // the oldest: c
    expect(ring.next()).toBe(c);
    ring.hold(1); // queued: a, c
    expect(ring.next()).toBe(b);
    ring.hold(1); // queued: a, c, b
    expect(ring.grown).toBe(0);
    const d = ring.next(); // every buffer held: a new one
    expect([a, b, c]).not.toContain(d);
    expect([ring.grown, ring.size]).toEqual([1, 4]);
  });

  it('without hold it is the plain rotation (vils realtime: one frame per tick)', () => {
    const ring = new TxRing(16, 4);
    const first = ring.next();
    for (let i = 0; i < 3; i++) ring.next();
    expect(ring.next()).toBe(first);
    expect(ring.grown).toBe(0);
  });
});

describe('the comms router under a burst of ticks, on a real socket', () => {
  let rx: UdpPeer;
  let sock: Socket;
  beforeAll(async () => {
    await loadTemplates();
    rx = await UdpPeer.open();
    sock = await senderSocket();
  });
  afterAll(async () => {
    await rx?.close();
    await closeSocket(sock);
  });

  it('20 STATE frames emitted in one event-loop turn arrive as 20 distinct frames, seq consecutive', async () => {
    const t = tireParams();
    const v = new CosimVehicle(
      { id: 0, level: 'L2', vehicle: vehicleParams(), tires: [t, t, t, t], x0: 0, y0: 0, z0: 0, yaw0: 0, vx0: 10, control: 'external', pathLookahead: 8, label: 'burst' },
      new FlatGround(1), { dt: 0.005, sensorDelayS: 0, watchdog: { cmdTimeoutS: 0 }, now: 0 },
    );
    const router = new CommsRouter(parseComms({ name: 'burst', channels: [{ source: '0.state', template: 'vds1', to: [{ ip: '127.0.0.1', port: rx.port }] }] }, 'burst.yaml'), [v], 5);
    let seq = 0;
    for (let i = 0; i < 20; i++) {
      v.session.tick(0.005);
      v.fillFrame();
      seq = router.emit(sock, seq, (i + 1) * 0.005, Date.now());
    }
    await rx.waitFor(() => rx.messages.length >= 20, 10_000, '20 STATE frames');
    await new Promise((r) => setTimeout(r, 50));
    const got = rx.messages.map((m) => readSpecState(m.buf));
    expect(got.map((g) => g.header.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(new Set(got.map((g) => g.fields.x)).size).toBe(20); // each its own tick: the car moves 5 cm a tick
    got.forEach((g, i) => expect(g.header.timestamp).toBeCloseTo((i + 1) * 0.005, 9));
    expect(router.tx[0].datagrams).toBe(20);
  });
});
