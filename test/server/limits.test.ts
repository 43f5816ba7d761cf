/**
 * No client can slow the loop or drown its own errors (issue 16's findings, each a regression test, on real
 * sockets): WebSocket input rate limits per connection and per client (drop, count, a throttled error, close
 * 1008), error replies in their own queue and coalesced, REST rate limits (429), and fixes judged on the
 * server's clock (non-finite timestamps, stale fixes, a client clock that is off). The loop's rate under a
 * full flood is measured by `npm run bench:flood`, not here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessSettings } from '../../src/server/access.js';
import type { VilsServer } from '../../src/server/app.js';
import { startServer, TestClient } from '../helpers/server-fixture.js';

const FIX = { lat: 37.3645, lon: 126.7239, heading: 45, speed: 5 };
const clients: TestClient[] = [];
async function open(url: string): Promise<TestClient> {
  const c = new TestClient(url);
  clients.push(c);
  await c.opened();
  return c;
}
const errorsOf = (c: TestClient) => c.messages.filter((m) => m.type === 'error');
const until = async (cond: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

// The buckets refill on the server's clock while messages arrive; a refill rate of one message in 1,000 s
// makes what gets through the burst alone, however slowly a busy machine delivers them.
const SLOW = 0.001;

describe('WebSocket input limits', () => {
  const servers: VilsServer[] = [];
  async function serverWith(limits: Record<string, unknown>): Promise<{ server: VilsServer; url: string; wsUrl: string }> {
    const started = await startServer({ config: { npc_target: 3 }, access: accessSettings({ limits }, {}) });
    servers.push(started.server);
    return started;
  }
  afterAll(async () => {
    for (const c of clients) c.close();
    for (const s of servers) await s.close();
  });

  it('over the limit, messages are dropped unparsed and counted, the client is told once a second; the connection stays', async () => {
    const { server, wsUrl } = await serverWith({ ws_connection: { messages_per_s: SLOW, messages_burst: 50 } });
    const c = await open(wsUrl);
    const t0 = performance.now();
    for (let i = 0; i < 150; i++) c.send('{"type": "ego_state", broken');
    await until(() => errorsOf(c).some((m) => /rate limit: \d+ messages? dropped/.test(m.error)));
    // 50 got through (the burst) and got their error: one by one or coalesced, every one accounted for
    await until(() => accounted(c) >= 50 && (server.host.status().access as { refused: { rate_limited_ws: number } }).refused.rate_limited_ws >= 100);
    expect((server.host.status().access as { refused: { rate_limited_ws: number } }).refused.rate_limited_ws).toBe(100);
    expect(accounted(c)).toBe(50);
    // the notice comes at most once a second however many are dropped
    const seconds = (performance.now() - t0) / 1000;
    expect(errorsOf(c).filter((m) => /rate limit/.test(m.error)).length).toBeLessThanOrEqual(1 + Math.floor(seconds));
    // still connected, still receiving frames
    const s = (await c.next((m) => m.type === 'npc_states')).step;
    await c.next((m) => m.type === 'npc_states' && m.step > s);
    expect(c.closeCode).toBeNull();
  });

  it('a connection that keeps flooding is closed with 1008; others go on', async () => {
    const { server, wsUrl } = await serverWith({ ws_connection: { messages_per_s: 50, messages_burst: 50 }, ws_close_after_dropped: 400, ws_flood_ban_s: 60 });
    const flood = await open(wsUrl);
    const other = await open(wsUrl);
    // it keeps flooding until it is closed: the server reads one message per connection per turn of its loop, so
    // how fast 1,000 messages are read (and how many of them the 50 a second let through) is the machine's speed
    const pump = setInterval(() => {
      for (let i = 0; i < 100 && flood.ws.readyState === flood.ws.OPEN; i++) flood.send('x');
    }, 10);
    const code = await flood.closed(30_000).finally(() => clearInterval(pump));
    expect(code).toBe(1008);
    await other.next((m) => m.type === 'npc_states');
    // the flooding client is turned away at the door for ws_flood_ban_s (its other connection stays)
    const again = new TestClient(wsUrl);
    // (a ban long enough that a loaded machine cannot let it pass before this knocks; let in, it answers 101)
    const refused = await new Promise<number>((resolve) => {
      again.ws.once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
      again.ws.once('open', () => resolve(101));
    });
    expect(refused).toBe(429);
    expect(other.closeCode).toBeNull();
    expect(((server.host.status().access as { refused: { closed_1008: number } }).refused.closed_1008)).toBeGreaterThanOrEqual(1);
  });

  it('the limit per client holds across its connections', async () => {
    const { wsUrl } = await serverWith({ ws_connection: { messages_per_s: SLOW, messages_burst: 50 }, ws_client: { messages_per_s: SLOW, messages_burst: 80 } });
    const a = await open(wsUrl);
    const b = await open(wsUrl);
    for (let i = 0; i < 45; i++) {
      a.send({ type: 'ping' });
      b.send({ type: 'ping' });
    }
    // each connection alone is within its 50, together they pass the client's 80
    await until(() => errorsOf(a).concat(errorsOf(b)).some((m) => /rate limit/.test(m.error)));
  });

  it('REST: over the limit a client gets 429 with the reason; counted', async () => {
    const { url } = await serverWith({ rest_reads_per_s: 20 });
    // 60 at once: at most 20 a second pass, so at least 20 are refused unless they take more than 2 s to arrive
    const codes = await Promise.all(Array.from({ length: 60 }, () => fetch(`${url}/api/npcs`).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))));
    const refused = codes.filter((c) => c.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(10);
    expect(refused[0].body.message).toMatch(/rate limit: at most 20 reads a second from one client/);
    await new Promise((r) => setTimeout(r, 1100)); // a read allowed again
    const st = await fetch(`${url}/api/status`).then((r) => r.json() as Promise<any>);
    expect(st.access.refused.rate_limited_rest).toBeGreaterThanOrEqual(10);
  });
});

/** Errors a client was told about: one by one, or as part of an "N more errors" line. */
function accounted(c: TestClient): number {
  return errorsOf(c).reduce((n, m) => n + (/rate limit|clock:/.test(m.error) ? 0 : typeof m.more_errors === 'number' ? m.more_errors : 1), 0);
}

describe('error replies', () => {
  let server: VilsServer;
  let wsUrl: string;
  beforeAll(async () => {
    const big = { messages_per_s: 10_000, messages_burst: 10_000 };
    ({ server, wsUrl } = await startServer({ config: { npc_target: 3 }, access: accessSettings({ limits: { ws_connection: big, ws_client: big } }, {}) }));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('in a burst of 2,000 bad messages every one is answered or counted in an "N more errors" reply, and frames still come', async () => {
    const c = await open(wsUrl);
    await c.next((m) => m.type === 'npc_states');
    for (let i = 0; i < 2000; i++) c.send(`{"bad": ${i}`);
    // the finding: errors shared the 4-frame queue with broadcasts, and only 40 of 2,000 came back
    await until(() => accounted(c) >= 2000);
    expect(accounted(c)).toBe(2000);
    const more = errorsOf(c).filter((m) => typeof m.more_errors === 'number');
    expect(more.length).toBeGreaterThanOrEqual(1);
    expect(more[0].error).toMatch(/^\d+ more errors \(the last: malformed JSON/);
    expect(errorsOf(c).length).toBeLessThan(100); // coalesced, not 2,000 frames
    const s = (await c.next((m) => m.type === 'npc_states')).step;
    await c.next((m) => m.type === 'npc_states' && m.step > s);
    expect(server.host.counters.errors).toBeGreaterThanOrEqual(2000);
  });
});

describe('fixes judged on the server clock', () => {
  let server: VilsServer;
  let url: string;
  let wsUrl: string;
  beforeAll(async () => {
    ({ server, url, wsUrl } = await startServer({ config: { npc_target: 2, ego_timeout_s: 2 } }));
  });
  afterAll(async () => {
    await server?.close();
  });
  const now = () => server.host.runner.epochNow();

  it('refuses a non-finite timestamp (1e400 is Infinity in JSON.parse)', async () => {
    const c = await open(wsUrl);
    c.send(`{"type":"ego_state","ego_id":"inf","timestamp":1e400,"data":${JSON.stringify(FIX)}}`);
    expect((await c.next((m) => m.type === 'error')).error).toMatch(/timestamp must be a finite number/);
    c.send(`{"type":"ego_state","ego_id":"inf","timestamp":-1e400,"data":${JSON.stringify(FIX)}}`);
    expect((await c.next((m) => m.type === 'error' && /finite/.test(m.error))).error).toMatch(/finite/);
    expect(server.host.scene.hasEgo('inf')).toBe(false);
  });

  it('a frozen fix with an hour-old timestamp is stale: not used, and the ego goes stale', async () => {
    const c = await open(wsUrl);
    const t = now();
    c.send({ type: 'ego_state', ego_id: 'frozen', timestamp: t, data: FIX });
    await c.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string; stale: boolean }) => e.ego_id === 'frozen' && !e.stale));
    // the finding: a frozen fix with an hour-old timestamp stayed "live"
    c.send({ type: 'ego_state', ego_id: 'frozen', timestamp: t - 3600, data: FIX });
    const err = await c.next((m) => m.type === 'error' && /stale fix/.test(m.error));
    expect(err.error).toMatch(/stale fix: 3600\.\d{3} s old on the server clock \(offset 0\.000 s, synced\), more than ego_timeout_s 2; not used/);
    // a frozen receiver repeating it is not a clock that stepped back (its stamps do not advance): never taken
    for (let i = 0; i < 8; i++) c.send({ type: 'ego_state', ego_id: 'frozen', timestamp: t - 3600, data: FIX });
    await c.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string; stale: boolean }) => e.ego_id === 'frozen' && e.stale), 4000);
    expect(errorsOf(c).filter((m) => /^clock:/.test(m.error))).toHaveLength(0); // its clock is not off: its fix is old
    expect(server.host.scene.snapshot().egos.find((e) => e.egoId === 'frozen')?.clientTimestamp).toBe(t);
  });

  it('a client clock off by more than a second is told once and still used within ego_timeout_s; within a second, nothing is said', async () => {
    const ok = await open(wsUrl);
    ok.send({ type: 'ego_state', ego_id: 'close', timestamp: now() + 0.5, data: FIX });
    await ok.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string }) => e.ego_id === 'close'));
    ok.send({ type: 'ping' });
    await ok.next((m) => m.type === 'pong');
    expect(errorsOf(ok)).toEqual([]);
    const late = await open(wsUrl);
    for (let i = 0; i < 3; i++) late.send({ type: 'ego_state', ego_id: 'late', timestamp: now() - 1.5, data: FIX });
    await late.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string }) => e.ego_id === 'late'));
    const told = errorsOf(late);
    expect(told).toHaveLength(1);
    // the figure grows by however long the message took to be read (a busy machine): 1.5 s and up
    expect(told[0].error).toMatch(/^clock: your timestamps are [12]\.\d\d s behind the server's clock \(clock_offset_s 0\)/);
    const ahead = await open(wsUrl);
    ahead.send({ type: 'ego_state', ego_id: 'ahead', timestamp: now() + 30, data: FIX });
    // … and shrinks by it ahead: 30 s and down
    expect((await ahead.next((m) => m.type === 'error')).error).toMatch(/^clock: your timestamps are (29|30)\.\d\d s ahead of the server's clock/);
    await ahead.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string }) => e.ego_id === 'ahead'));
  });

  it('a configured clock offset (GPS time is 18 s ahead of UTC) makes such clients fresh', async () => {
    const put = await fetch(`${url}/api/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clock_offset_s: 18 }) });
    expect(put.status).toBe(200);
    expect(((await put.json()) as any).clock_offset_s).toBe(18);
    const gps = await open(wsUrl);
    gps.send({ type: 'ego_state', ego_id: 'gps', timestamp: now() + 18, data: FIX });
    await gps.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string; stale: boolean }) => e.ego_id === 'gps' && !e.stale));
    gps.send({ type: 'ping' });
    await gps.next((m) => m.type === 'pong');
    expect(errorsOf(gps)).toEqual([]);
    // and a client on UTC is now 18 s behind what is assumed: told so, its offset estimated from its fixes, used
    const utc = await open(wsUrl);
    utc.send({ type: 'ego_state', ego_id: 'utc', timestamp: now(), data: FIX });
    expect((await utc.next((m) => m.type === 'error' && /^clock:/.test(m.error))).error).toMatch(/^clock: your timestamps are 1[78]\.\d\d s behind the server's clock \(clock_offset_s 18\), estimated from your fixes alone/);
    await utc.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string; clock_source: string }) => e.ego_id === 'utc' && e.clock_source === 'fixes'));
  });
});
