/**
 * One body policy for every HTTP route of every server VILS runs (issue 44, item 1). The issue found /api/io outside
 * the 32-level nesting limit (depth 5000 answered 500 "Maximum call stack size exceeded", on PUT /api/io/targets
 * too), unknown keys taken, `vehicle: 4294967295` a 200 with the error inside, and `vils realtime --http-port`
 * accepting depth 5000 with 200. Here every route each server has registered — enumerated from fastify (the routes
 * the policy's onRoute hook saw, checked against fastify's own route tree), never a hand-written list — gets a body
 * nested 5,000 deep, a 2 MB body and a body with an unknown key, and must answer a 4xx naming the limit: never a
 * 2xx, never a 5xx. The servers: `vils serve` serving a test case with a simulated ego (its REST, the story, the
 * JSON data port) and a second scene, with its Foxglove port of its own; `vils realtime --http-port`; `vils replay
 * --play`.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRealtime, type RealtimeHandle } from '../../src/cli/realtime.js';
import { startServe, type ServeHandle } from '../../src/cli/serve.js';
import {
  MAX_BODY_BYTES,
  NO_BODY_SCHEMA,
  bodylessRefusal,
  describeSchemaError,
  pickSchemaError,
  schemaProblems,
  sizeRefusal,
} from '../../src/server/body-policy.js';
import { createPlayback, type Playback } from '../../src/server/playback.js';
import { installBodyPolicy } from '../../src/server/plugins/body-policy.js';
import { FOXGLOVE_PORT_ONLY } from '../../src/server/plugins/foxglove.js';
import Fastify from 'fastify';
import { freePort } from '../cosim/helpers/udp.js';
import { startServer, testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { FastClock } from '../record/fast-clock.js';

const UNKNOWN = 'extra_key_44';
const deep = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
const big = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) });
const BODIES = { deep, big, unknown: JSON.stringify({ [UNKNOWN]: 1 }) } as const;
type Kind = keyof typeof BODIES;

/** What each kind of body must be answered with, by the policy's own words. */
function expected(kind: Kind, method: string): { status: number[]; message: RegExp } {
  const noBody = /takes no body/;
  if (kind === 'big') return { status: [413], message: new RegExp(`more than the ${MAX_BODY_BYTES} bytes`) };
  if (method === 'GET' || method === 'HEAD') return { status: [400], message: noBody };
  if (kind === 'deep') return { status: [400], message: /nested more than 32 levels deep/ };
  return { status: [400], message: new RegExp(`${UNKNOWN}: unknown key|${UNKNOWN} is not a field|this request takes no body`) };
}

/** A URL for a route: parameters and wildcards filled in. */
const concrete = (url: string) => url.replace(/:junction/g, 'J1').replace(/:id/g, '1').replace(/:[A-Za-z_]+/g, 'x').replace(/\*/g, 'x');

/** Every method of every route in fastify's own route tree (printRoutes), to check the policy saw them all. */
function treeMethodCount(app: FastifyInstance): number {
  let n = 0;
  for (const m of app.printRoutes({ commonPrefix: false }).matchAll(/\(([A-Z, ]+)\)/g)) n += m[1].split(',').length;
  return n;
}

interface Outcome { server: string; method: string; url: string; kind: Kind; status: number; message: string }

/** Sends the three bodies to every route of an app; the outcomes. */
async function walk(server: string, app: FastifyInstance): Promise<Outcome[]> {
  const routes = app.vilsRoutes!;
  expect(routes.length, `${server}: routes the policy saw vs fastify's route tree`).toBe(treeMethodCount(app));
  const out: Outcome[] = [];
  for (const { method, url } of routes) {
    for (const kind of Object.keys(BODIES) as Kind[]) {
      const r = await app.inject({ method: method as 'GET', url: concrete(url), headers: { 'content-type': 'application/json' }, payload: BODIES[kind] });
      let message = '';
      try {
        message = String((r.json() as { message?: unknown }).message ?? r.body.slice(0, 200));
      } catch {
        message = r.body.slice(0, 200);
      }
      out.push({ server, method, url, kind, status: r.statusCode, message });
    }
  }
  return out;
}

describe('the body policy, decided', () => {
  it('a schema that takes unknown keys or leaves a value unbounded breaks it; the policy names what', () => {
    expect(schemaProblems(NO_BODY_SCHEMA)).toEqual([]);
    expect(schemaProblems({ type: 'object', additionalProperties: false, properties: { a: { type: 'integer', minimum: 0, maximum: 3 }, b: { enum: ['x'] } } })).toEqual([]);
    expect(schemaProblems({ type: 'object', properties: {} })).toEqual(['body: takes unknown keys (additionalProperties must be false, or a schema with maxProperties)']);
    expect(schemaProblems({
      type: 'object', additionalProperties: false,
      properties: { n: { type: 'number', minimum: 0 }, s: { type: 'string' }, l: { type: 'array', items: { type: 'object', properties: {} } }, m: { type: 'object', additionalProperties: { type: 'string', maxLength: 4 } } },
    })).toEqual([
      'body.n: a number without a maximum', 'body.s: a string without a maxLength', 'body.l: an array without maxItems',
      'body.l[]: takes unknown keys (additionalProperties must be false, or a schema with maxProperties)',
      'body.m: takes unknown keys (additionalProperties must be false, or a schema with maxProperties)',
    ]);
  });
  it('size, bodies on GET, and validation errors in words that name the limit and the key', () => {
    expect(sizeRefusal(MAX_BODY_BYTES)).toBeNull();
    expect(sizeRefusal(MAX_BODY_BYTES + 1)).toBe('body: 65537 bytes, more than the 65536 bytes (64 KiB) a request body may have; refused unread');
    expect(sizeRefusal(null)).toBe('body: more than the 65536 bytes (64 KiB) a request body may have; refused');
    expect(bodylessRefusal('GET', '/api/status', { 'content-length': '2' })).toBe('body: GET /api/status takes no body; refused unread');
    expect(bodylessRefusal('GET', '/api/status', { 'transfer-encoding': 'chunked' })).toMatch(/takes no body/);
    expect(bodylessRefusal('GET', '/api/status', { 'content-length': '0' })).toBeNull();
    expect(bodylessRefusal('POST', '/api/reset', { 'content-length': '2' })).toBeNull();
    const errors = [
      { keyword: 'required', instancePath: '', params: { missingProperty: 'attempt' }, message: "must have required property 'attempt'" },
      { keyword: 'additionalProperties', instancePath: '/goal', params: { additionalProperty: 'z' }, message: 'must NOT have additional properties' },
    ];
    expect(describeSchemaError(pickSchemaError(errors), 'body')).toBe('body/goal/z: unknown key, refused (the fields this request takes are in its schema, /docs)');
    expect(describeSchemaError(errors[0], 'body')).toBe("body must have required property 'attempt'");
    expect(describeSchemaError({ keyword: 'maxProperties', instancePath: '', params: { limit: 0 } }, 'body')).toBe('body: this request takes no body (nothing, or {})');
    expect(describeSchemaError({ keyword: 'enum', instancePath: '/vehicle', params: { allowedValues: [0, 5] } }, 'body')).toBe('body/vehicle must be one of 0, 5');
  });
  it('a route whose body schema breaks it is refused when it is registered', async () => {
    const app = Fastify({ logger: false });
    installBodyPolicy(app);
    expect(() => app.post('/loose', { schema: { body: { type: 'object', properties: { n: { type: 'number' } } } } }, async () => ({}))).toThrow(/^POST \/loose: its body schema breaks the body policy .*: body: takes unknown keys/);
    expect(() => app.put('/open', { schema: { body: { type: 'object', additionalProperties: false, properties: { n: { type: 'number' } } } } }, async () => ({}))).toThrow(/body\.n: a number without a minimum; body\.n: a number without a maximum$/);
    app.post('/closed', async () => ({ ok: true })); // no schema: it takes no body
    expect((await app.inject({ method: 'POST', url: '/closed' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/closed', payload: {} })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/closed', payload: { a: 1 } })).json().message).toBe('body/a: unknown key, refused (the fields this request takes are in its schema, /docs)');
  });
});

describe('every route of every server: a 5,000-deep body, a 2 MB body and an unknown key are a 4xx naming the limit', () => {
  let dir: string;
  let serve: ServeHandle;
  let realtime: RealtimeHandle;
  let playback: Playback;
  const outcomes: Outcome[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vils-body-'));
    // limits high enough that the walk (some 150 requests a server from one address) is never a 429
    const access = join(dir, 'access.json');
    writeFileSync(access, JSON.stringify({ limits: { rest_reads_per_s: 100_000, rest_commands_per_s: 100_000 } }));
    serve = await startServe([
      '--scenario', join(PROJECT_ROOT, 'configs', 'cases', 'cut_in.yaml'), '--scene', `b=${join(PROJECT_ROOT, 'maps', 'demo-track.json')}`,
      '--port', '0', '--host', '127.0.0.1', '--foxglove-port', '0', '--access', access, '--paused', '--no-record', '--model', testModel(), '--log-level', 'silent',
    ]);
    realtime = await startRealtime([
      join(PROJECT_ROOT, 'configs', 'vehicles', 'sedan.yaml'), join(PROJECT_ROOT, 'configs', 'tires', 'default_pacejka.yaml'),
      `--cmd-port=${await freePort()}`, `--state-port=${await freePort()}`, '--http-port=0', '--quiet',
    ], { log: () => undefined, err: () => undefined });
    // a short recording to play back
    const recDir = join(dir, 'rec');
    const clock = new FastClock(0);
    const { server } = await startServer({ config: { npc_target: 2, publish_hz: 10 }, clock, epochNow: () => 1.7e9 + clock.now(), recording: { dir: recDir } });
    while (server.host.runner.simNow() < 1) await new Promise((r) => setTimeout(r, 5));
    await server.close();
    playback = await createPlayback(join(recDir, readdirSync(recDir)[0]), { logLevel: false, loop: true });
    outcomes.push(...(await walk('vils serve', serve.server.app)));
    outcomes.push(...(await walk('vils realtime --http-port', realtime.http!)));
    outcomes.push(...(await walk('vils replay --play', playback.app)));
  }, 120_000);

  afterAll(async () => {
    await playback?.close();
    await realtime?.stop();
    await serve?.server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the walk covers the routes the issue named, on every server', () => {
    const seen = new Set(outcomes.map((o) => `${o.server} ${o.method} ${o.url}`));
    for (const r of [
      'vils serve POST /api/io', 'vils serve PUT /api/io/targets', 'vils serve POST /api/io/targets', 'vils serve PUT /api/config', 'vils serve POST /api/init',
      'vils serve POST /api/reset', 'vils serve POST /api/story/arm', 'vils serve PUT /api/signals/:junction/plan', 'vils serve POST /scenes/b/api/npcs',
      'vils serve GET /ws/vils/stream', 'vils serve GET /api/status', 'vils serve HEAD /api/status',
      'vils realtime --http-port POST /api/io', 'vils realtime --http-port PUT /api/io/targets', 'vils replay --play GET /api/status',
    ]) expect(seen, r).toContain(r);
    expect(seen.size).toBeGreaterThan(60);
  });

  it('never a 2xx, never a 5xx: a 4xx naming the limit, for every route and body', () => {
    const wrong = outcomes.filter((o) => {
      const e = expected(o.kind, o.method);
      // a HEAD reply has no body to name anything in: its status says it
      return !e.status.includes(o.status) || (o.method !== 'HEAD' && !e.message.test(o.message));
    });
    expect(wrong.map((o) => `${o.server}: ${o.method} ${o.url} with the ${o.kind} body → ${o.status} ${o.message.slice(0, 120)}`)).toEqual([]);
  });

  it('the same over a real socket: the 2 MB body is answered 413 before it is read, and the server stays up', async () => {
    const r = await fetch(`${serve.address}/api/io`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(r.status).toBe(413);
    expect(((await r.json()) as { message: string }).message).toMatch(/more than the 65536 bytes/);
    const d = await fetch(`${serve.address}/api/io/targets`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: deep });
    expect([d.status, ((await d.json()) as { message: string }).message]).toEqual([400, 'body: arrays and objects nested more than 32 levels deep (at most 32); refused unread']);
    expect((await fetch(`${serve.address}/api/health`)).status).toBe(200);
  });

  it("the Foxglove port of its own has no HTTP route: any request, whatever its body, is a 426 saying so", async () => {
    const port = serve.server.foxglovePort!;
    for (const body of Object.values(BODIES)) {
      const r = await fetch(`http://127.0.0.1:${port}/api/io`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(r.status).toBe(426);
      expect(((await r.json()) as { message: string }).message).toBe(FOXGLOVE_PORT_ONLY);
    }
  });

  it('vehicle 4294967295 on the data port: a 400 naming the fleet, not a 200 with the error inside', async () => {
    for (const app of [serve.server.app, realtime.http!]) {
      const r = await app.inject({ method: 'POST', url: '/api/io', payload: { vehicle: 4294967295, throttle: 0 } });
      expect([r.statusCode, r.json().message]).toEqual([400, 'body/vehicle must be one of 0']);
    }
  });
});
