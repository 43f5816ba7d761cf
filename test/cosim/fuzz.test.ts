/**
 * Bad input loses nothing and stops nothing: 100,000 corrupt, truncated, oversized, wrong-version, wrong-type,
 * wrong-CRC, unknown-vehicle, replayed and reordered datagrams hit the command port on loopback while a valid
 * controller drives at 100 Hz. Every bad datagram must be dropped and counted under the reason it was built
 * for, every valid command accepted, and the controller's vehicle must never fall into fail-safe. The fuzzer
 * sends in batches and waits for the server to have read them, so the kernel never drops one (which would
 * make the count unverifiable); the valid controller runs on its own timer throughout. The command timeout is
 * 2 s, not VDSim's 0.1 s: a busy machine may delay the controller's own timer by more than 0.1 s, and what is
 * tested is that no bad datagram displaces a valid command, not how punctual the timer is (the loop's rate
 * under a flood is npm run bench:cosim's).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RealtimeServer } from '../../src/cosim/realtime.js';
import type { Vds1Reject } from '../../src/cosim/vds1.js';
import { specCmd, zlibCrc32 } from './helpers/spec-vectors.js';
import { UdpPeer, sleep, vehicleSpec, world } from './helpers/udp.js';

const TOTAL = 100_000;
const BATCH = 250;

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const closers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  while (closers.length) await closers.pop()!.close();
});

describe('fuzz: 100,000 bad datagrams against a valid 100 Hz controller', () => {
  it('0 crashes, every bad datagram dropped and counted by reason, the valid controller never in fail-safe', async () => {
    const seed = await UdpPeer.open();
    closers.push(seed);
    const server = await RealtimeServer.create({ world: world([vehicleSpec(0, { vx0: 5 })]), dt: 0.005, cmdTimeoutS: 2, cmdPort: 0, statePort: seed.port });
    closers.push(server);
    const port = server.cmdPorts[0];
    const running = server.run();

    // the valid controller: 100 Hz, increasing seq, its packets kept for replays
    const ctl = await UdpPeer.open();
    closers.push(ctl);
    const history: Buffer[] = [];
    let ctlSeq = 0;
    let ctlSent = 0;
    const sendValid = () => {
      const pkt = specCmd({ seq: ++ctlSeq }, { steer: 0.01, throttle: 0.2, brake: 0 });
      ctl.socket.send(pkt, port, '127.0.0.1', () => {
        ctlSent++;
        history.push(pkt);
      });
    };
    sendValid();
    const timer = setInterval(sendValid, 10);
    await sleep(100);

    const fuzz = await UdpPeer.open();
    closers.push(fuzz);
    const rand = rng(12);
    const int = (n: number) => Math.floor(rand() * n);
    const expected: Record<Vds1Reject, number> = { short: 0, magic: 0, version: 0, type: 0, length: 0, crc: 0, bad_value: 0, stale_seq: 0, unknown_vehicle: 0 };
    const reseal = (b: Buffer) => {
      b.writeUInt32LE(zlibCrc32(b.subarray(0, 72)), 72);
      return b;
    };
    const fresh = () => specCmd({ seq: 1_000_000 + int(1_000_000) }, { steer: rand() - 0.5, throttle: rand(), brake: rand() });
    const make = (): [Buffer, Vds1Reject] => {
      switch (int(11)) {
        case 0: // truncated
          return [fresh().subarray(0, int(76)), 'short'];
        case 1: { // corrupt payload bytes (distinct positions: two flips of one byte could cancel out)
          const b = fresh();
          const at = 24 + int(45);
          for (let i = 0, n = 1 + int(4); i < n; i++) b[at + i] ^= 1 + int(255);
          return [b, 'crc'];
        }
        case 2: { // oversized junk
          const b = Buffer.alloc(77 + int(1400));
          for (let i = 0; i < b.length; i++) b[i] = int(256);
          if (b.readUInt32LE(0) === 0x56445331) b[0] ^= 0xff;
          return [b, 'magic'];
        }
        case 3: { // oversized: a CMD with a broken CRC and trailing bytes
          const b = Buffer.concat([fresh(), Buffer.alloc(int(1400), int(256))]);
          b.writeUInt32LE((b.readUInt32LE(72) + 1) >>> 0, 72);
          return [b, 'crc'];
        }
        case 4: { // wrong version, valid CRC
          const b = fresh();
          b.writeUInt16LE([0, 1, 2, 3, 4, 6, 0xffff][int(7)], 4);
          return [reseal(b), 'version'];
        }
        case 5: { // wrong msg_type, valid CRC
          const b = fresh();
          b.writeUInt16LE([0, 2, 3, 0xffff][int(4)], 6);
          return [reseal(b), 'type'];
        }
        case 6: { // wrong CRC only
          const b = fresh();
          b.writeUInt32LE((b.readUInt32LE(72) ^ (1 << int(32))) >>> 0, 72);
          return [b, 'crc'];
        }
        case 7: { // unknown vehicle, valid everything else
          const b = fresh();
          b.writeUInt32LE(1 + int(1000), 12);
          return [reseal(b), 'unknown_vehicle'];
        }
        case 10: { // a well-formed CMD with a control no controller can mean: NaN, ±Infinity, 1e308
          const bad = [Number.NaN, Infinity, -Infinity, 1e308, -1e308][int(5)];
          const fields = { steer: 0, throttle: 0.1, brake: 0 };
          fields[(['steer', 'throttle', 'brake'] as const)[int(3)]] = bad;
          return [specCmd({ seq: 1_000_000 + int(1_000_000) }, fields), 'bad_value'];
        }
        case 8: // replayed: an exact copy of the newest accepted CMD
          return [Buffer.from(history[history.length - 1]), 'stale_seq'];
        default: // reordered: an older CMD delivered late
          return [Buffer.from(history[int(history.length)]), 'stale_seq'];
      }
    };

    const t0 = performance.now();
    const ticksStart = server.counters().ticks;
    let sent = 0;
    while (sent < TOTAL) {
      const n = Math.min(BATCH, TOTAL - sent);
      for (let i = 0; i < n; i++) {
        const [pkt, reason] = make();
        expected[reason]++;
        fuzz.socket.send(pkt, port, '127.0.0.1');
      }
      sent += n;
      // wait until the server has read everything sent so far (valid controller included)
      const deadline = Date.now() + 60_000; // a hang guard
      while (server.receiver.received < sent + ctlSent) {
        if (Date.now() > deadline) throw new Error(`server read ${server.receiver.received} of ${sent + ctlSent} datagrams`);
        await new Promise((r) => setImmediate(r));
      }
    }
    const fuzzS = (performance.now() - t0) / 1000;
    const ticks0 = server.counters().ticks;
    clearInterval(timer);
    // the controller's last datagrams read too (its count moves on its send callbacks)
    await sleep(50);
    for (const deadline = Date.now() + 60_000; server.receiver.received < TOTAL + ctlSent && Date.now() < deadline;) await sleep(5);
    const during = server.counters();
    server.stop();
    await running;

    expect(during.drops).toEqual(expected);
    expect(during.rx - during.accepted).toBe(TOTAL);
    expect(during.accepted).toBe(ctlSent);
    expect(during.handlerErrors).toBe(0);
    expect(during.vehicles[0].failsafeEntries).toBe(0);
    expect(ticks0).toBeGreaterThan(ticksStart); // the loop ticked on through the fuzz
    expect(server.vehicles[0].session.applied.throttle).toBe(0.2);
    expect(seed.messages.length).toBeGreaterThan(0);
    console.log(`[fuzz] ${TOTAL} bad datagrams in ${fuzzS.toFixed(2)} s (${Math.round(TOTAL / fuzzS)}/s) beside ${ctlSent} valid CMDs; drops ${JSON.stringify(during.drops)}; overruns ${during.overruns}`);
  });
});
