import { createSocket, type Socket } from 'node:dgram';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createSystemClock } from '../../src/time/clock.js';
import { runSession } from '../../src/time/run-session.js';
import { TimeSession } from '../../src/time/session.js';
import { AssetServer } from '../../src/time/asset-server.js';
import {
  type ClientMessage,
  MAX_DATAGRAM,
  type ServerMessage,
  decodeClientMessage,
  decodeServerMessage,
  encodeClientMessage,
  encodeServerMessage,
} from '../../src/time/asset-protocol.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('asset protocol codec', () => {
  it('round-trips every message', () => {
    const client: ClientMessage[] = [
      { type: 'register', name: 'plant-1', stepUs: 10_000, kind: 'simulated' },
      { type: 'register', name: 'car', stepUs: 100_000, kind: 'wallclock' },
      { type: 'report', name: 'plant-1', timeUs: 120_000, held: 3 },
      { type: 'report', name: 'plant-1', timeUs: 0 },
      { type: 'leave', name: 'x.y:z@1/2' },
    ];
    for (const m of client) expect(decodeClientMessage(encodeClientMessage(m))).toEqual({ ok: true, msg: m });
    const server: ServerMessage[] = [
      { type: 'registered', name: 'a', timeUs: 30_000, tcUs: 35_000, stepUs: 10_000, coreStepUs: 5_000, dmaxUs: 50_000, mode: 'afap', timeoutMs: 2000, heartbeatMs: 500 },
      { type: 'tc', tcUs: 1, timeUs: 0, seq: 7 },
      { type: 'tc', tcUs: 1, timeUs: 0, seq: 8, refused: 'ahead_of_core' },
      { type: 'left', name: 'a' },
      { type: 'removed', name: 'a', reason: 'timeout' },
      { type: 'error', reason: 'name_taken', detail: 'x' },
    ];
    for (const m of server) expect(decodeServerMessage(encodeServerMessage(m))).toEqual({ ok: true, msg: m });
  });

  it('drops malformed datagrams with a reason and never throws', () => {
    const cases: [string | Buffer, string][] = [
      [Buffer.alloc(MAX_DATAGRAM + 1, 0x20), 'too_large'],
      ['{"v":1,"type":"report"', 'not_json'],
      [Buffer.from([0xff, 0xfe, 0x00]), 'not_json'],
      ['[1,2]', 'not_object'],
      ['null', 'not_object'],
      ['{"type":"report","name":"a","t_us":1}', 'bad_version'],
      ['{"v":2,"type":"report","name":"a","t_us":1}', 'bad_version'],
      ['{"v":1,"type":"hello","name":"a"}', 'unknown_type'],
      ['{"v":1,"type":"report","name":"","t_us":1}', 'bad_name'],
      ['{"v":1,"type":"report","name":"has space","t_us":1}', 'bad_name'],
      [`{"v":1,"type":"report","name":"${'n'.repeat(65)}","t_us":1}`, 'bad_name'],
      ['{"v":1,"type":"report","name":7,"t_us":1}', 'bad_name'],
      ['{"v":1,"type":"register","name":"a","step_us":0}', 'bad_step'],
      ['{"v":1,"type":"register","name":"a","step_us":1.5}', 'bad_step'],
      ['{"v":1,"type":"register","name":"a","step_us":"10"}', 'bad_step'],
      ['{"v":1,"type":"register","name":"a","step_us":10,"kind":"real"}', 'bad_kind'],
      ['{"v":1,"type":"report","name":"a","t_us":-10}', 'bad_time'],
      ['{"v":1,"type":"report","name":"a","t_us":1e300}', 'bad_time'],
      ['{"v":1,"type":"report","name":"a"}', 'bad_time'],
      ['{"v":1,"type":"report","name":"a","t_us":10,"held":-1}', 'bad_held'],
    ];
    for (const [d, reason] of cases) expect(decodeClientMessage(typeof d === 'string' ? b(d) : d), String(d)).toEqual({ ok: false, reason });
  });

  it('fuzz: random bytes, random JSON and mutated messages decode to a message or a drop reason, never a throw', () => {
    const valid = fc.oneof(
      fc.record({ v: fc.constant(1), type: fc.constant('register'), name: fc.string({ maxLength: 70 }), step_us: fc.oneof(fc.integer(), fc.double(), fc.string()), kind: fc.oneof(fc.constant('simulated'), fc.string()) }),
      fc.record({ v: fc.oneof(fc.constant(1), fc.integer()), type: fc.constant('report'), name: fc.string({ maxLength: 70 }), t_us: fc.oneof(fc.integer(), fc.double(), fc.constant(null)), held: fc.option(fc.integer()) }),
      fc.record({ v: fc.constant(1), type: fc.string(), name: fc.anything() }),
    );
    const datagram = fc.oneof(fc.uint8Array({ maxLength: 600 }), fc.json().map(b), fc.anything().map((x) => b(JSON.stringify(x) ?? 'undefined')), valid.map((x) => b(JSON.stringify(x))));
    fc.assert(
      fc.property(datagram, (d) => {
        const r = decodeClientMessage(d);
        if (!r.ok) return typeof r.reason === 'string';
        // whatever decodes re-encodes to the same message
        return JSON.stringify(decodeClientMessage(encodeClientMessage(r.msg))) === JSON.stringify(r);
      }),
      { numRuns: 3000, seed: 47800 },
    );
  });
});

/** A raw UDP peer of the server. */
class Peer {
  readonly sock: Socket = createSocket('udp4');
  readonly inbox: ServerMessage[] = [];
  private waiters: (() => void)[] = [];
  constructor(private readonly port: number) {
    this.sock.on('message', (buf) => {
      const d = decodeServerMessage(buf);
      if (d.ok) this.inbox.push(d.msg);
      for (const w of this.waiters.splice(0)) w();
    });
  }
  send(m: ClientMessage | string | Uint8Array): void {
    this.sock.send(typeof m === 'string' ? b(m) : m instanceof Uint8Array ? m : encodeClientMessage(m), this.port, '127.0.0.1');
  }
  /** Waits for the first message (from now on, or already queued) that matches. */
  async next<T extends ServerMessage['type']>(type: T, pred: (m: Extract<ServerMessage, { type: T }>) => boolean = () => true, ms = 3000): Promise<Extract<ServerMessage, { type: T }>> {
    const end = performance.now() + ms;
    for (;;) {
      const i = this.inbox.findIndex((m) => m.type === type && pred(m as Extract<ServerMessage, { type: T }>));
      if (i >= 0) return this.inbox.splice(0, i + 1).at(-1) as Extract<ServerMessage, { type: T }>;
      const left = end - performance.now();
      if (left <= 0) throw new Error(`no ${type} within ${ms} ms; inbox ${JSON.stringify(this.inbox)}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }
  close(): void {
    this.sock.close();
  }
}

describe('AssetServer over real UDP', () => {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  async function setup(timeoutS = 5, mode: 'afap' | 'realtime' = 'afap') {
    // realtime without a wall clock of its own: the peers' wall-clock assets are the only ones that drag Tc
    const session = new TimeSession({ mode, coreStepUs: 10_000, dmaxUs: 30_000, assetTimeoutS: timeoutS, clock: createSystemClock({ spinS: 0 }), wallName: null });
    const conductor = session.conductor;
    const server = new AssetServer({ hub: session, port: 0, timeoutMs: timeoutS * 1000 });
    const { port } = await server.start();
    const ac = new AbortController();
    const running = runSession(session, { signal: ac.signal });
    cleanup.push(async () => {
      ac.abort();
      await running;
      await server.close();
    });
    const peer = (): Peer => {
      const p = new Peer(port);
      cleanup.push(() => p.close());
      return p;
    };
    return { conductor, session, server, peer };
  }

  it('counts garbage by reason, keeps serving, and enforces the rule on reports', async () => {
    const { conductor, server, peer } = await setup();
    const a = peer();
    a.send('not json at all');
    a.send('{"v":1,"type":"register","name":"a","step_us":0}');
    a.send('{"v":9,"type":"register","name":"a","step_us":10000}');
    a.send({ type: 'report', name: 'ghost', timeUs: 10 });
    expect(await a.next('error')).toMatchObject({ reason: 'not_registered' });
    a.send({ type: 'register', name: 'a', stepUs: 15_000, kind: 'simulated' });
    expect(await a.next('error')).toMatchObject({ reason: 'step_not_multiple_of_core' });
    a.send({ type: 'register', name: 'a', stepUs: 10_000, kind: 'simulated' });
    const reg = await a.next('registered');
    expect(reg).toMatchObject({ name: 'a', timeUs: 0, stepUs: 10_000, coreStepUs: 10_000, dmaxUs: 30_000, mode: 'afap', timeoutMs: 5000, heartbeatMs: 1250 });
    // the greedy core runs dmax ahead of the only asset and pushes each Tc
    await a.next('tc', (m) => m.tcUs === 30_000);
    expect(conductor.timeUs).toBe(30_000);
    // a repeated register (our answer was lost) is answered again, a second peer cannot take the name
    a.send({ type: 'register', name: 'a', stepUs: 10_000, kind: 'simulated' });
    expect(await a.next('registered')).toMatchObject({ timeUs: 0, tcUs: 30_000 });
    const intruder = peer();
    intruder.send({ type: 'register', name: 'a', stepUs: 10_000, kind: 'simulated' });
    expect(await intruder.next('error')).toMatchObject({ reason: 'name_taken' });
    intruder.send({ type: 'report', name: 'a', timeUs: 10_000 });
    // reports: ahead of Tc and off the grid are refused, a jump of several steps within Tc is accepted
    a.send({ type: 'report', name: 'a', timeUs: 40_000 });
    expect(await a.next('tc', (m) => m.refused !== undefined)).toMatchObject({ refused: 'ahead_of_core', timeUs: 0, tcUs: 30_000 });
    a.send({ type: 'report', name: 'a', timeUs: 15_000 });
    expect(await a.next('tc', (m) => m.refused !== undefined)).toMatchObject({ refused: 'off_grid', timeUs: 0 });
    a.send({ type: 'report', name: 'a', timeUs: 20_000, held: 4 });
    await a.next('tc', (m) => m.timeUs === 20_000 && m.tcUs === 50_000);
    const st = conductor.assetStatus('a')!;
    expect(st).toMatchObject({ timeUs: 20_000, progressed: 2, retained: 4, refused: { ahead_of_core: 1, off_grid: 1 } });
    expect(server.stats.dropped).toEqual({ not_json: 1, bad_step: 1, bad_version: 1, not_registered: 1, wrong_address: 1 });
    expect(conductor.checkInvariants()).toEqual([]);
    a.send({ type: 'leave', name: 'a' });
    await a.next('left');
    expect(conductor.size).toBe(0);
  });

  it('a flood of random datagrams is dropped and counted; the server still serves', async () => {
    const { server, peer } = await setup();
    const a = peer();
    const junk = fc.sample(fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 600 }), fc.json().map(b), fc.anything().map((x) => b(JSON.stringify(x) ?? '0'))), { numRuns: 300, seed: 7 });
    for (let i = 0; i < junk.length; i++) {
      a.send(junk[i]);
      if (i % 20 === 19) await new Promise((r) => setTimeout(r, 2)); // stay within the socket's receive buffer
    }
    a.send({ type: 'register', name: 'after-flood', stepUs: 10_000, kind: 'simulated' });
    expect(await a.next('registered')).toMatchObject({ name: 'after-flood' });
    const dropped = Object.values(server.stats.dropped).reduce((x, y) => x + (y ?? 0), 0);
    expect(server.stats.received).toBe(301);
    expect(dropped).toBe(300); // every junk datagram, each under some reason
    expect(Object.keys(server.stats.dropped).length).toBeGreaterThan(3);
    expect(server.stats.dropped.internal_error).toBeUndefined();
  });

  it('a silent asset is told it was removed, and rejoins at the current Tc when it comes back', async () => {
    const { conductor, peer, session } = await setup(0.2);
    const quiet = peer();
    const busy = peer();
    quiet.send({ type: 'register', name: 'quiet', stepUs: 10_000, kind: 'simulated' });
    busy.send({ type: 'register', name: 'busy', stepUs: 10_000, kind: 'simulated' });
    await quiet.next('registered');
    await busy.next('registered');
    const t0 = performance.now();
    // busy keeps reporting; quiet says nothing, so it holds the core at dmax until it is removed
    let t = 0;
    let removed: ServerMessage | undefined;
    while (!removed && performance.now() - t0 < 5000) {
      if (t + 10_000 <= conductor.timeUs) t += 10_000;
      busy.send({ type: 'report', name: 'busy', timeUs: t });
      await busy.next('tc');
      removed = quiet.inbox.find((m) => m.type === 'removed');
    }
    const waitedMs = performance.now() - t0;
    expect(removed).toEqual({ type: 'removed', name: 'quiet', reason: 'timeout' });
    expect(waitedMs).toBeGreaterThan(150);
    expect(waitedMs).toBeLessThan(5000);
    expect(conductor.status().departed).toMatchObject([{ name: 'quiet', reason: 'timeout', final: { timeUs: 0 } }]);
    // the core goes on with busy alone
    while (conductor.timeUs < 200_000) {
      if (t + 10_000 <= conductor.timeUs) t += 10_000;
      busy.send({ type: 'report', name: 'busy', timeUs: t });
      await busy.next('tc');
    }
    quiet.send({ type: 'report', name: 'quiet', timeUs: 10_000 });
    expect(await quiet.next('error')).toMatchObject({ reason: 'not_registered' });
    quiet.send({ type: 'register', name: 'quiet', stepUs: 10_000, kind: 'simulated' });
    const back = await quiet.next('registered');
    expect(back.timeUs).toBe(Math.floor(back.tcUs / 10_000) * 10_000);
    expect(back.timeUs).toBeGreaterThanOrEqual(200_000);
    expect(session.conductor.checkInvariants()).toEqual([]);
  });

  it('realtime: a wall-clock asset registers and drags Tc; a simulated one that stops reporting is lagging, not waited for', async () => {
    const { conductor, peer } = await setup(5, 'realtime');
    const car = peer();
    const sim = peer();
    car.send({ type: 'register', name: 'car', stepUs: 10_000, kind: 'wallclock' });
    sim.send({ type: 'register', name: 'sim', stepUs: 10_000, kind: 'simulated' });
    const reg = await car.next('registered');
    await sim.next('registered');
    // the car reports a time ahead of Tc: accepted, and Tc follows it
    const ahead = reg.tcUs + 500_000;
    car.send({ type: 'report', name: 'car', timeUs: ahead });
    await car.next('tc', (m) => m.timeUs === ahead && m.tcUs >= ahead);
    expect(conductor.timeUs).toBeGreaterThanOrEqual(ahead);
    expect(conductor.lagging()).toEqual(['sim']);
    expect(conductor.assetStatus('car')!.retained).toBe(0);
    expect(conductor.checkInvariants()).toEqual([]);
  });
});
