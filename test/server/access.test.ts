/**
 * Access control over real sockets and HTTP (issue 16's findings, each a regression test): tokens and
 * roles, ego ownership, Origin / CORS, Host (DNS rebinding), cross-site simple requests, the open-server
 * warning, and no token in the log.
 */
import { request } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AccessControl, accessSettings } from '../../src/server/access.js';
import type { VilsServer } from '../../src/server/app.js';
import { startServer, TestClient } from '../helpers/server-fixture.js';

const OPERATOR = 'op-0123456789abcdef';
const DRIVER_CAR1 = 'drv-car1-0123456789';
const DRIVER_ANY = 'drv-any-0123456789a';
const VIEWER = 'view-0123456789abcd';
const FIX = { lat: 37.3645, lon: 126.7239, heading: 45, speed: 5 };
const egoMsg = (egoId: string, extra: Record<string, unknown> = {}) => ({ type: 'ego_state', ego_id: egoId, timestamp: Date.now() / 1000, data: FIX, ...extra });

/** An HTTP call with optional token and headers; the reply body parsed when it is JSON. */
async function call(url: string, method: string, path: string, o: { token?: string; headers?: Record<string, string>; body?: string } = {}) {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  const res = await fetch(url + path, { method, headers, body: o.body });
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

/** A GET with any headers, Host included (fetch does not let a caller set Host). */
function rawGet(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a WebSocket; resolves with the open client or the HTTP status of the refused upgrade. */
function connect(url: string, opts: { token?: string; origin?: string; headers?: Record<string, string> } = {}): Promise<TestClient | number> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const c = new TestClient(url, { headers, origin: opts.origin });
  return new Promise((resolve) => {
    c.ws.once('open', () => resolve(c));
    c.ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    c.ws.once('error', () => resolve(-1));
  });
}

const open = async (url: string, opts: Parameters<typeof connect>[1] = {}) => {
  const c = await connect(url, opts);
  if (typeof c === 'number') throw new Error(`connection refused with ${c}`);
  return c;
};

describe('with tokens', () => {
  let server: VilsServer;
  let url: string;
  let wsUrl: string;
  const logged: string[] = [];
  const clients: TestClient[] = [];
  beforeAll(async () => {
    const access = accessSettings({
      tokens: [
        { token: OPERATOR, role: 'operator', name: 'ops' },
        { token: DRIVER_CAR1, role: 'driver', name: 'car1-bridge', egos: ['car1'] },
        { token: DRIVER_ANY, role: 'driver', name: 'sim' },
        { token: VIEWER, role: 'viewer', name: 'screen' },
      ],
      allowed_origins: ['https://ops.example'],
    }, {});
    const logStream = new Writable({ write(chunk, _enc, cb) { logged.push(String(chunk)); cb(); } });
    ({ server, url, wsUrl } = await startServer({ config: { npc_target: 3 }, access, logLevel: 'info', logStream }));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.close();
  });

  it('REST: reads need a viewer, commands an operator; the page, its files, health and docs are public', async () => {
    expect((await call(url, 'GET', '/api/health')).status).toBe(200);
    expect([200, 503]).toContain((await call(url, 'GET', '/')).status); // 503: the page is not built
    expect((await call(url, 'GET', '/docs/json')).status).toBe(200);
    const anon = await call(url, 'GET', '/api/status');
    expect(anon.status).toBe(401);
    expect(anon.body.message).toMatch(/needs a viewer token/);
    expect(anon.headers.get('www-authenticate')).toBe('Bearer');
    expect((await call(url, 'GET', '/api/status', { token: 'not-a-token-at-all' })).status).toBe(401);
    expect((await call(url, 'GET', '/api/status', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
    expect((await call(url, 'GET', '/api/status', { token: VIEWER })).status).toBe(200);
    expect((await call(url, 'GET', `/api/npcs?token=${VIEWER}`)).status).toBe(200);
    expect((await call(url, 'GET', '/metrics', { token: VIEWER })).status).toBe(200);
    expect((await call(url, 'GET', '/metrics')).status).toBe(401);
    // the findings: anyone could reset or pause the session, or make the NPCs stop seeing the real car
    const step0 = server.host.scene.steps;
    await new Promise((r) => setTimeout(r, 300));
    for (const [path, body] of [['/api/reset', undefined], ['/api/pause', undefined], ['/api/init', undefined]] as const) {
      expect((await call(url, 'POST', path, { body })).status).toBe(401);
      const viewer = await call(url, 'POST', path, { token: VIEWER });
      expect(viewer.status).toBe(403);
      expect(viewer.body.message).toMatch(/needs a operator token; screen is a viewer/);
      expect((await call(url, 'POST', path, { token: DRIVER_ANY })).status).toBe(403);
    }
    expect(server.host.runner.state).toBe('running');
    expect(server.host.scene.steps).toBeGreaterThan(step0); // never reset
    const tiny = JSON.stringify({ ego_timeout_s: 1e-9 });
    const json = { 'content-type': 'application/json' };
    expect((await call(url, 'PUT', '/api/config', { body: tiny, headers: json, token: VIEWER })).status).toBe(403);
    // an operator may change settings, but not to one that blinds the NPCs (below one policy step)
    const op = await call(url, 'PUT', '/api/config', { body: tiny, headers: json, token: OPERATOR });
    expect(op.status).toBe(400);
    expect(op.body.message).toMatch(/ego_timeout_s must be >= 0.1/);
    expect(server.host.scene.config.ego_timeout_s).toBe(0.5);
    expect((await call(url, 'POST', `/api/pause?token=${OPERATOR}`)).body).toEqual({ state: 'paused' });
    expect((await call(url, 'POST', '/api/start', { token: OPERATOR })).body).toEqual({ state: 'running' });
    // the status says how the server is protected
    const st = (await call(url, 'GET', '/api/status', { token: VIEWER })).body;
    expect(st.access).toMatchObject({ auth: 'tokens', tokens: { operator: 1, driver: 2, viewer: 1 }, warning: null });
    expect(st.access.refused.unauthenticated).toBeGreaterThanOrEqual(5);
    expect(st.access.refused.forbidden).toBeGreaterThanOrEqual(7);
  });

  it('WebSocket: a token is needed to connect; viewers only watch; drivers drive the egos they are granted', async () => {
    expect(await connect(wsUrl)).toBe(401);
    expect(await connect(wsUrl, { token: 'wrong-token-0000000' })).toBe(401);
    const viewer = await open(`${wsUrl}?token=${VIEWER}`);
    clients.push(viewer);
    await viewer.next((m) => m.type === 'npc_states');
    viewer.send(egoMsg('car1'));
    expect((await viewer.next((m) => m.type === 'error')).error).toMatch(/screen may only watch \(viewer role\)/);
    viewer.send({ type: 'ping' });
    await viewer.next((m) => m.type === 'pong');

    const car1 = await open(wsUrl, { token: DRIVER_CAR1 });
    clients.push(car1);
    car1.send(egoMsg('car2'));
    expect((await car1.next((m) => m.type === 'error')).error).toMatch(/car1-bridge may not drive ego "car2"/);
    car1.send(egoMsg('car1'));
    await car1.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string }) => e.ego_id === 'car1'));
    expect(server.host.scene.hasEgo('car1')).toBe(true);
  });

  it("an ego belongs to the token that created it: another client cannot move it, the same token can after a reconnect", async () => {
    const car1 = await open(wsUrl, { token: DRIVER_CAR1 });
    clients.push(car1);
    // (frames show an ego moved to the frame's time: its own fix is known by the timestamp it echoes)
    const own = egoMsg('car1', { data: { ...FIX, speed: 1 } });
    car1.send(own);
    await car1.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string; timestamp: number }) => e.ego_id === 'car1' && e.timestamp === own.timestamp));
    // the finding: any client could overwrite the real car's ego
    const intruder = await open(wsUrl, { token: DRIVER_ANY });
    clients.push(intruder);
    intruder.send(egoMsg('car1', { data: { ...FIX, lat: 37.3648, speed: 9 } }));
    expect((await intruder.next((m) => m.type === 'error')).error).toMatch(/ego "car1" belongs to another client \(car1-bridge\)/);
    const op = await open(wsUrl, { token: OPERATOR });
    clients.push(op);
    op.send(egoMsg('car1', { data: { ...FIX, speed: 9 } }));
    expect((await op.next((m) => m.type === 'error')).error).toMatch(/belongs to another client/);
    const f = await car1.next((m) => m.type === 'npc_states');
    expect(f.egos.find((e: { ego_id: string }) => e.ego_id === 'car1').timestamp).toBe(own.timestamp);
    // the car reconnects (new connection, same token) and drives on
    car1.close();
    const again = await open(wsUrl, { token: DRIVER_CAR1 });
    clients.push(again);
    const next = egoMsg('car1', { data: { ...FIX, speed: 2 } });
    again.send(next);
    await again.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string; timestamp: number }) => e.ego_id === 'car1' && e.timestamp === next.timestamp));
    // an operator frees the id by forgetting the ego; then another driver may take it
    expect((await call(url, 'DELETE', '/api/egos/car1', { token: OPERATOR })).status).toBe(200);
    intruder.send(egoMsg('car1'));
    await intruder.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string }) => e.ego_id === 'car1'));
  });

  it('browsers: WebSocket Origin and CORS by allow-list, the own page always allowed; cross-site commands refused', async () => {
    const own = new URL(url).origin;
    // the finding: a WebSocket from any web page was accepted
    expect(await connect(`${wsUrl}?token=${VIEWER}`, { origin: 'https://evil.example' })).toBe(403);
    const mine = await open(`${wsUrl}?token=${VIEWER}`, { origin: own });
    clients.push(mine);
    const ops = await open(`${wsUrl}?token=${VIEWER}`, { origin: 'https://ops.example' });
    clients.push(ops);
    // the finding: a plain cross-site POST (a "simple request": no preflight) to /api/reset, /api/pause succeeded
    for (const path of ['/api/reset', '/api/pause', '/api/start', '/api/npcs']) {
      const r = await call(url, 'POST', path, { token: OPERATOR, headers: { origin: 'https://evil.example' } });
      expect(r.status).toBe(403);
      expect(r.body.message).toMatch(/origin https:\/\/evil\.example is not allowed/);
    }
    expect((await call(url, 'POST', '/api/pause', { token: OPERATOR, headers: { origin: 'null' } })).status).toBe(403);
    expect((await call(url, 'POST', '/api/pause', { token: OPERATOR, headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    // a form or text/plain body is never a command
    const form = await call(url, 'POST', '/api/pause', { token: OPERATOR, headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(form.status).toBe(415);
    expect((await call(url, 'POST', '/api/pause', { token: OPERATOR, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' })).status).toBe(415);
    expect(server.host.runner.state).toBe('running');
    // the own page and an allowed origin: allowed; CORS headers only for the allowed other origin
    const same = await call(url, 'POST', '/api/start', { token: OPERATOR, headers: { origin: own } });
    expect(same.status).toBe(200);
    expect(same.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await call(url, 'OPTIONS', '/api/pause', { headers: { origin: 'https://ops.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://ops.example');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect((await call(url, 'OPTIONS', '/api/pause', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })).status).toBe(403);
    const read = await call(url, 'GET', '/api/status', { token: VIEWER, headers: { origin: 'https://ops.example' } });
    expect(read.headers.get('access-control-allow-origin')).toBe('https://ops.example');
    expect((await call(url, 'GET', '/api/status', { token: VIEWER, headers: { origin: 'https://evil.example' } })).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('Host is checked (DNS rebinding): IP literals, localhost and configured names only', async () => {
    const port = new URL(url).port;
    // the finding: any Host header was accepted
    const rebound = await rawGet(url, '/api/health', { host: `attacker.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body.message).toMatch(/does not answer to the host name "attacker.example:/);
    expect(await connect(`${wsUrl}?token=${VIEWER}`, { headers: { host: `attacker.example:${port}` }, origin: `http://attacker.example:${port}` })).toBe(403);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `10.1.2.3:${port}`]) {
      expect((await rawGet(url, '/api/health', { host })).status).toBe(200);
    }
  });

  it('never writes a token into the log', async () => {
    await rawGet(url, `/api/status?token=${VIEWER}`, { host: 'attacker.example' });
    await call(url, 'DELETE', `/api/npcs?token=${VIEWER}`);
    const text = logged.join('');
    expect(text).toMatch(/refused DELETE \/api\/npcs from screen \(127\.0\.0\.1\): DELETE \/api\/npcs needs a operator token/);
    expect(text).toMatch(/token=<hidden>/);
    for (const t of [OPERATOR, DRIVER_CAR1, DRIVER_ANY, VIEWER]) expect(text).not.toContain(t);
    expect(text).toMatch(/client \d+ \(car1-bridge \(127\.0\.0\.1\), driver\) connected to the stream/);
  });
});

describe('without tokens (a closed track LAN)', () => {
  let server: VilsServer;
  let url: string;
  let wsUrl: string;
  const clients: TestClient[] = [];
  beforeAll(async () => {
    ({ server, url, wsUrl } = await startServer({ config: { npc_target: 2 }, access: accessSettings({}, {}) }));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.close();
  });

  it('every client may control, but an ego belongs to its connection; a reconnect from the same address gets it back', async () => {
    expect((await call(url, 'POST', '/api/start')).status).toBe(200);
    const car = await open(wsUrl);
    clients.push(car);
    car.send(egoMsg('ego'));
    await car.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string }) => e.ego_id === 'ego'));
    const other = await open(wsUrl);
    clients.push(other);
    other.send(egoMsg('ego', { data: { ...FIX, speed: 9 } }));
    expect((await other.next((m) => m.type === 'error')).error).toMatch(/ego "ego" belongs to another connection; use another ego_id/);
    car.close();
    await car.closed();
    await new Promise((r) => setTimeout(r, 50));
    const back = await open(wsUrl);
    clients.push(back);
    const mine = egoMsg('ego', { data: { ...FIX, speed: 3 } });
    back.send(mine);
    await back.next((m) => m.type === 'npc_states' && m.egos?.some((e: { ego_id: string; timestamp: number }) => e.ego_id === 'ego' && e.timestamp === mine.timestamp));
  });

  it("an ego the server drives itself (a simulated ego) is no client's to move", async () => {
    const { scene, geo } = server.host;
    const p = geo.toLocal(FIX.lat, FIX.lon);
    await server.host.inputs.updateEgo({ egoId: 'sim-1', x: p.x, y: p.y, yaw: 0, speed: 2 }, server.host.runner.simNow());
    const c = await open(wsUrl);
    clients.push(c);
    c.send(egoMsg('sim-1', { data: { ...FIX, speed: 9 } }));
    expect((await c.next((m) => m.type === 'error')).error).toMatch(/ego "sim-1" is driven by the server itself \(a simulated ego\)/);
    expect(scene.snapshot().egos.find((e) => e.egoId === 'sim-1')?.speed).toBe(2);
  });

  it('still refuses cross-site commands and foreign WebSocket origins', async () => {
    expect((await call(url, 'POST', '/api/reset', { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect(await connect(wsUrl, { origin: 'https://evil.example' })).toBe(403);
  });

  it('on loopback, no warning; listening on every address with no token: a loud warning in the log and the status', async () => {
    expect((await call(url, 'GET', '/api/status')).body.access).toMatchObject({ auth: 'open', warning: null });
    const logged: string[] = [];
    const logStream = new Writable({ write(chunk, _enc, cb) { logged.push(String(chunk)); cb(); } });
    const { server: exposed } = await startServer({ config: { npc_target: 0 }, logLevel: 'warn', logStream, listenHost: '0.0.0.0' });
    try {
      const port = (exposed.app.server.address() as { port: number }).port;
      const st = await call(`http://127.0.0.1:${port}`, 'GET', '/api/status');
      expect(st.body.access.auth).toBe('open');
      expect(st.body.access.warning).toMatch(/NO ACCESS CONTROL: listening on 0\.0\.0\.0:\d+ with no token configured/);
      // piped (JSON lines, the default off a terminal): every line one JSON object, the warning's parts as fields
      const lines = logged.join('').split('\n').filter((l) => l !== '');
      for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow();
      const banner = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((o) => o.warning === 'no_access_control');
      expect(banner).toMatchObject({ level: 40, addresses: [expect.stringMatching(/^0\.0\.0\.0:\d+$/)], risk: expect.stringMatching(/anyone who can reach this port/), fix: expect.stringMatching(/VILS_OPERATOR_TOKENS/) });
      expect(banner!.msg).toMatch(/^NO ACCESS CONTROL: listening on 0\.0\.0\.0:\d+ with no token configured/);
      expect(banner!.msg).not.toContain('\n');
    } finally {
      await exposed.close();
    }
  });

  it('on a terminal (--log-format pretty) the warning stands out, framed by lines of "!"', async () => {
    const logged: string[] = [];
    const logStream = new Writable({ write(chunk, _enc, cb) { logged.push(String(chunk)); cb(); } });
    const { server: exposed } = await startServer({ config: { npc_target: 0 }, logLevel: 'warn', logStream, logFormat: 'pretty', listenHost: '0.0.0.0' });
    try {
      expect(logged.join('')).toMatch(/\n!{100}\nNO ACCESS CONTROL: listening on 0\.0\.0\.0:\d+[^\n]*\n!{100}/);
    } finally {
      await exposed.close();
    }
  });
});

describe('access settings', () => {
  it('reads tokens from the environment and refuses bad files with the key', () => {
    const s = accessSettings({}, { VILS_OPERATOR_TOKENS: 'a-very-long-token-1, a-very-long-token-2', VILS_VIEWER_TOKENS: 'view-token-12345', VILS_ALLOWED_ORIGINS: 'https://x.example:8443/' });
    expect(s.tokens.map((t) => t.role)).toEqual(['viewer', 'operator', 'operator']);
    expect(s.allowed_origins).toEqual(['https://x.example:8443']);
    const a = new AccessControl(s);
    expect(a.identify('Bearer a-very-long-token-2', undefined, '1.2.3.4').role).toBe('operator');
    expect(a.identify(undefined, 'view-token-12345', '1.2.3.4').role).toBe('viewer');
    expect(a.identify(undefined, undefined, '1.2.3.4').role).toBeNull();
    expect(() => accessSettings({ tokens: [{ token: 'short', role: 'operator' }] }, {})).toThrow(/shorter than 12 characters/);
    expect(() => accessSettings({ tokens: [{ token: 'a-very-long-token-1', role: 'admin' }] }, {})).toThrow(/role must be one of viewer, driver, operator/);
    expect(() => accessSettings({ tokns: [] }, {})).toThrow(/unknown key "tokns"/);
    expect(() => accessSettings({ limits: { ws_connection: { messages_per_s: -1 } } }, {})).toThrow(/limits\.ws_connection\.messages_per_s must be a positive number/);
    expect(() => accessSettings({ allowed_origins: ['https://x.example/path'] }, {})).toThrow(/is not an origin/);
    expect(() => accessSettings({}, { VILS_DRIVER_TOKENS: 'same-token-1234567,same-token-1234567' })).toThrow(/given twice/);
  });

  it('the status warns only when the server is reachable beyond loopback with no token', () => {
    const open = new AccessControl();
    expect(open.status(['127.0.0.1:8000', '[::1]:8000']).warning).toBeNull();
    expect(open.status(['0.0.0.0:8000']).warning).toMatch(/NO ACCESS CONTROL/);
    expect(open.status(['[::]:8000']).warning).toMatch(/NO ACCESS CONTROL/);
    const closed = new AccessControl(accessSettings({}, { VILS_OPERATOR_TOKENS: 'a-very-long-token-1' }));
    expect(closed.status(['0.0.0.0:8000']).warning).toBeNull();
  });
});

// keep the import used when the file is read alone
void WebSocket;
