/**
 * The server-wide parse budget (issue 26, item 3): many addresses each under the per-connection and per-client
 * limits could together slow the loop (16 addresses × 8 connections × 450 valid messages a second: 9.49 Hz).
 * Stream input of all connections together, beyond each connection's small reserve, is bounded by
 * limits.ws_server; over it a message is dropped unparsed and counted (over_server_budget, in /api/status and
 * /metrics), and a well-behaved client — one within its connection's reserve, limits.ws_reserved — is never
 * starved. Everything here is decided by counts: the buckets refill at one message in 1,000 s, so what gets
 * through is the bursts alone, however slowly a busy machine delivers the messages. The loop's rate under the
 * attack is measured by `npm run bench:flood -- --attack parse`, not here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AccessControl, DEFAULT_LIMITS, accessSettings, type Admit } from '../../src/server/access.js';
import type { VilsServer } from '../../src/server/app.js';
import { startServer, TestClient } from '../helpers/server-fixture.js';

const SLOW = 0.001;
const FIX = { lat: 37.3645, lon: 126.7239, heading: 45, speed: 5 };

function tally(results: Admit[]): Record<Admit, number> {
  const t: Record<Admit, number> = { ok: 0, drop: 0, close: 0, busy: 0 };
  for (const r of results) t[r]++;
  return t;
}

describe('the parse budget (pure)', () => {
  const budget = (server: number, reserve: number, more: Record<string, unknown> = {}) => new AccessControl(accessSettings({
    limits: { ws_server: { messages_per_s: SLOW, messages_burst: server }, ws_reserved: { messages_per_s: SLOW, messages_burst: reserve }, ...more },
  }, {}));

  it('across several connections from several addresses exactly reserve × connections + budget messages pass; the rest are dropped and counted', () => {
    const access = budget(30, 5);
    const peers = ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((a) => access.identify(undefined, undefined, a));
    const conns = peers.flatMap((p) => [access.connect(p, 0), access.connect(p, 0)]);
    const results: Admit[] = [];
    // 20 messages on each of the 6 connections, interleaved, over a second: each connection is far under its
    // own limit (500) and each address under its client's (4,000)
    for (let i = 0; i < 20; i++) for (const c of conns) results.push(c.admit(200, i * 0.05));
    expect(tally(results)).toEqual({ ok: 6 * 5 + 30, drop: 0, close: 0, busy: 120 - 60 });
    expect(access.refused.over_server_budget).toBe(60);
    expect(access.refused.rate_limited_ws).toBe(0);
    expect(access.wsInput).toEqual({ from_reserve: 30, from_budget: 30 });
    expect(conns.reduce((n, c) => n + c.busy, 0)).toBe(60);
    // the budget is spent: a well-behaved client (a car at 10 Hz) connecting now still has its reserve
    const car = access.connect(access.identify(undefined, undefined, '10.0.0.9'), 1);
    expect(tally(Array.from({ length: 5 }, (_, i) => car.admit(150, 1 + i * 0.1)))).toMatchObject({ ok: 5, busy: 0 });
    expect(car.admit(150, 1.6)).toBe('busy');
    // the budget and the reserves refill at their rate (one message in 1,000 s): the car's reserve first, then the budget
    expect(car.admit(150, 1001.7)).toBe('ok');
    expect(access.wsInput.from_reserve).toBe(36);
    expect(conns[0].admit(200, 1001.7)).toBe('ok'); // its own reserve refilled too
    expect(conns[1].admit(200, 1001.7)).toBe('ok');
    expect(conns[2].admit(200, 1001.7)).toBe('ok');
    expect(access.wsInput.from_budget).toBe(30); // (each from its own reserve)
    expect(car.admit(150, 1001.7)).toBe('ok'); // the budget's one refilled message
    expect(access.wsInput.from_budget).toBe(31);
    expect(car.admit(150, 1001.7)).toBe('busy');
  });

  it('the bytes bound too: a message takes from the reserve only when its bytes fit there', () => {
    const access = new AccessControl(accessSettings({
      limits: {
        ws_server: { messages_per_s: SLOW, messages_burst: 1000, bytes_per_s: SLOW, bytes_burst: 10_000 },
        ws_reserved: { messages_per_s: SLOW, messages_burst: 5, bytes_per_s: SLOW, bytes_burst: 1500 },
      },
    }, {}));
    const conns = ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((a) => access.connect(access.identify(undefined, undefined, a), 0));
    const results: Admit[] = [];
    for (let i = 0; i < 10; i++) for (const c of conns) results.push(c.admit(1000, i * 0.01));
    // one 1,000-byte message fits each reserve of 1,500 bytes, ten fit the budget of 10,000
    expect(tally(results)).toEqual({ ok: 3 + 10, drop: 0, close: 0, busy: 30 - 13 });
    expect(access.wsInput).toEqual({ from_reserve: 3, from_budget: 10 });
    // small messages still fit what is left of a reserve (500 bytes, 4 messages)
    expect(conns[0].admit(100, 1)).toBe('ok');
    expect(access.wsInput.from_reserve).toBe(4);
  });

  it("over a connection's own limit a message is dropped as before and takes nothing from the budget; a spent budget never closes a connection", () => {
    const access = budget(10, 2, { ws_connection: { messages_per_s: SLOW, messages_burst: 4 }, ws_close_after_dropped: 5 });
    const flood = access.connect(access.identify(undefined, undefined, '10.0.0.1'), 0);
    const first = Array.from({ length: 8 }, (_, i) => flood.admit(100, i * 0.01));
    // 4 within its own limit (2 from its reserve, 2 from the budget), then dropped; the fifth drop closes it
    expect(first.slice(0, 4)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(tally(first.slice(4))).toEqual({ ok: 0, drop: 4, close: 0, busy: 0 });
    expect(flood.admit(100, 0.09)).toBe('close');
    expect(access.wsInput).toEqual({ from_reserve: 2, from_budget: 2 });
    // the other 8 of the budget are still there for the others: four connections take 2 each beyond their reserves
    const others = ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5'].map((a) => access.connect(access.identify(undefined, undefined, a), 0));
    expect(tally(others.flatMap((c) => Array.from({ length: 4 }, (_, i) => c.admit(100, 0.1 + i * 0.01))))).toEqual({ ok: 16, drop: 0, close: 0, busy: 0 });
    expect(access.wsInput).toEqual({ from_reserve: 2 + 8, from_budget: 2 + 8 });
    // and then the budget is spent: past its reserve a connection's messages are dropped, however many, and it is never closed
    const late = access.connect(access.identify(undefined, undefined, '10.0.0.6'), 0);
    expect(tally(Array.from({ length: 4 }, (_, i) => late.admit(100, 0.2 + i * 0.01)))).toEqual({ ok: 2, drop: 0, close: 0, busy: 2 });
    const many = budget(1, 1, { ws_close_after_dropped: 5 });
    const c = many.connect(many.identify(undefined, undefined, '10.0.0.1'), 0);
    expect(tally(Array.from({ length: 400 }, (_, i) => c.admit(100, i * 0.001)))).toEqual({ ok: 2, drop: 0, close: 0, busy: 398 });
    expect(many.refused.over_server_budget).toBe(398);
    expect(many.refused.rate_limited_ws).toBe(0);
    expect(access.refused.rate_limited_ws).toBe(5);
    // but what a connection sends counts against its own limit, parsed or not: a flood is closed all the same
    const tight = budget(1, 1, { ws_connection: { messages_per_s: SLOW, messages_burst: 10 }, ws_close_after_dropped: 5 });
    const f = tight.connect(tight.identify(undefined, undefined, '10.0.0.1'), 0);
    expect(Array.from({ length: 15 }, (_, i) => f.admit(100, i * 0.001))).toEqual([...Array(2).fill('ok'), ...Array(8).fill('busy'), ...Array(4).fill('drop'), 'close']);
  });

  it('the keys are checked like the others: refused at start naming the key; defaults a few thousand in all and 20 a connection', () => {
    expect(DEFAULT_LIMITS.ws_server).toEqual({ messages_per_s: 4000, messages_burst: 4000, bytes_per_s: 4_000_000, bytes_burst: 4_000_000 });
    expect(DEFAULT_LIMITS.ws_reserved).toEqual({ messages_per_s: 20, messages_burst: 20, bytes_per_s: 20_000, bytes_burst: 20_000 });
    expect(accessSettings({}, {}).limits.ws_server).toEqual(DEFAULT_LIMITS.ws_server);
    expect(accessSettings({ limits: { ws_server: { messages_per_s: 2000 } } }, {}).limits.ws_server).toEqual({ ...DEFAULT_LIMITS.ws_server, messages_per_s: 2000 });
    expect(() => accessSettings({ limits: { ws_server: { messages_per_s: -1 } } }, {}, 'access file a.json')).toThrow(/^access file a\.json: limits\.ws_server\.messages_per_s must be a positive number, got -1$/);
    expect(() => accessSettings({ limits: { ws_server: { messages_per_s: 'lots' } } }, {})).toThrow(/limits\.ws_server\.messages_per_s must be a positive number/);
    expect(() => accessSettings({ limits: { ws_reserved: { bytes_burst: 0 } } }, {})).toThrow(/limits\.ws_reserved\.bytes_burst must be a positive number, got 0/);
    expect(() => accessSettings({ limits: { ws_reserved: { per_client: 5 } } }, {})).toThrow(/limits\.ws_reserved: unknown key "per_client"/);
    expect(() => accessSettings({ limits: { ws_server: 4000 } }, {})).toThrow(/limits\.ws_server must be an object/);
    expect(() => accessSettings({ limits: { ws_server: { messages_burst: 0.5 } } }, {})).toThrow(/limits\.ws_server\.messages_burst must be at least 1 \(a burst below one message lets none through\), got 0\.5/);
    expect(() => accessSettings({ limits: { ws_budget: {} } }, {})).toThrow(/limits: unknown key "ws_budget"/);
  });
});

describe('the parse budget on real sockets', () => {
  let server: VilsServer;
  const clients: TestClient[] = [];
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.close();
  });
  const open = async (url: string, localAddress: string) => {
    const c = new TestClient(url, { localAddress });
    clients.push(c);
    await c.opened();
    return c;
  };
  const until = async (cond: () => boolean) => {
    for (const end = Date.now() + 20_000; !cond(); await new Promise((r) => setTimeout(r, 10))) if (Date.now() > end) throw new Error('condition not met in time');
  };

  it('6 connections from 3 addresses: exactly 6 × 3 + 30 messages parsed, the rest dropped unparsed and counted (status, metrics), those with a message dropped told "server busy"; a car still gets its fixes in', async () => {
    let url: string;
    let wsUrl: string;
    ({ server, url, wsUrl } = await startServer({
      config: { npc_target: 2 },
      access: accessSettings({ limits: { ws_server: { messages_per_s: SLOW, messages_burst: 30 }, ws_reserved: { messages_per_s: SLOW, messages_burst: 3 } } }, {}),
    }));
    const access = () => server.host.status().access as { refused: Record<string, number>; ws_input: { from_reserve: number; from_budget: number; open_connections: number } };
    const floods: TestClient[] = [];
    for (const a of ['127.0.0.2', '127.0.0.3', '127.0.0.4']) for (let k = 0; k < 2; k++) floods.push(await open(wsUrl, a));
    // malformed JSON: every message parsed is answered with an error, so parsing shows
    for (const c of floods) for (let i = 0; i < 20; i++) c.send('{"type": "ego_state", broken');
    await until(() => access().ws_input.from_reserve + access().ws_input.from_budget + access().refused.over_server_budget >= 120);
    expect(access().ws_input).toMatchObject({ from_reserve: 18, from_budget: 30, open_connections: 6 });
    expect(access().refused.over_server_budget).toBe(120 - 48);
    expect(access().refused.rate_limited_ws).toBe(0);
    expect(server.host.counters.errors).toBe(48); // parsed: 48 malformed-JSON errors, no more
    // each connection that had a message dropped is told (at most one can have had all its 17 past the reserve from the budget of 30)
    const told = (c: TestClient) => c.messages.some((m) => m.type === 'error' && /^server busy: \d+ messages? dropped \(the server parses at most 0\.001 messages and \d+ bytes a second from all clients together, beyond each connection's reserve of 0\.001 messages a second\)/.test(m.error));
    await until(() => floods.filter(told).length >= 5);
    // the budget is spent; a car at 10 Hz from its own address still has its connection's reserve
    const car = await open(wsUrl, '127.0.0.5');
    for (let i = 0; i < 3; i++) car.send({ type: 'ego_state', ego_id: 'car', timestamp: server.host.runner.epochNow(), data: FIX });
    await car.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string }) => e.ego_id === 'car'));
    await until(() => access().ws_input.from_reserve === 21);
    expect(access().ws_input.from_budget).toBe(30);
    expect(car.messages.filter((m) => m.type === 'error')).toEqual([]);
    expect(server.host.counters.errors).toBe(48);
    // every flooding connection is still open (a spent budget is the server's, not the client's, fault)
    expect(floods.every((c) => c.closeCode === null)).toBe(true);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^vils_access_refused_total\{kind="over_server_budget"\} 72$/m);
    expect(metrics).toMatch(/^vils_ws_input_admitted_total\{kind="reserve"\} 21$/m);
    expect(metrics).toMatch(/^vils_ws_input_admitted_total\{kind="budget"\} 30$/m);
    const st = (await (await fetch(`${url}/api/status`)).json()) as { access: { limits: Record<string, unknown>; refused: Record<string, number> } };
    expect(st.access.refused.over_server_budget).toBe(72);
    expect(st.access.limits.ws_reserved).toMatchObject({ messages_burst: 3 });
  });
});

describe('Foxglove connections on the server port count like stream connections', () => {
  let server: VilsServer;
  const sockets: WebSocket[] = [];
  afterAll(async () => {
    for (const s of sockets) s.terminate();
    await server?.close();
  });
  const foxglove = (url: string) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/foxglove`, ['foxglove.websocket.v1']);
    sockets.push(ws);
    return ws;
  };
  const closed = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

  it('against limits.max_connections (1013), and their input through the limits and the budget (dropped unparsed, a flood closed 1008)', async () => {
    let url: string;
    let wsUrl: string;
    ({ server, url, wsUrl } = await startServer({
      config: { npc_target: 2 },
      access: accessSettings({ limits: { max_connections: 2, ws_connection: { messages_per_s: SLOW, messages_burst: 10 }, ws_reserved: { messages_per_s: SLOW, messages_burst: 2 }, ws_server: { messages_per_s: SLOW, messages_burst: 3 }, ws_close_after_dropped: 20 } }, {}),
    }));
    const access = () => server.host.status().access as { refused: Record<string, number>; ws_input: { from_reserve: number; from_budget: number; open_connections: number } };
    const stream = new TestClient(wsUrl);
    await stream.opened();
    const fox = foxglove(url);
    await new Promise((r) => fox.once('open', r));
    expect(access().ws_input.open_connections).toBe(2);
    const third = foxglove(url);
    expect(await closed(third)).toBe(1013);
    expect(access().refused.server_full).toBe(1);
    // 40 unknown ops: 2 from its reserve and 3 from the budget reach the protocol, 5 more are dropped over the
    // budget, then 20 over its own limit of 10 close it (1008)
    const gone = closed(fox);
    for (let i = 0; i < 40; i++) fox.send(JSON.stringify({ op: 'nonsense', i }));
    expect(await gone).toBe(1008);
    expect(access().ws_input).toMatchObject({ from_reserve: 2, from_budget: 3 });
    expect(access().refused.over_server_budget).toBe(5);
    expect(access().refused.rate_limited_ws).toBe(20);
    expect(access().refused.closed_1008).toBe(1);
    stream.close();
  });
});
