/**
 * Signals on the server: GET/PUT/DELETE /api/signals on the demo track (a signalised crossing J1 with groups J1.A
 * and J1.B), refusals with the reason, live states in the next frames and back to the plan after the timeout,
 * plan changes, the operator role for writes (REST and the stream's signal_input), signal_states for binary
 * clients, the Foxglove /vils/signals channel and stop lines, and an empty list on a map without signals.
 *
 * The main server runs on a fast clock (simulation time jumps to each tick, I/O served between ticks): what is
 * asserted is what the code decides at which simulation time, never how fast the machine is.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import wsProtocol from '@foxglove/ws-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { VilsServer } from '../../src/server/app.js';
import { accessSettings } from '../../src/server/access.js';
import { signalStatesSchema, npcStatesSchema } from '../../src/server/schemas.js';
import { defaultMapPath } from '../../src/scene/index.js';
import { FastClock } from '../record/fast-clock.js';
import { startServer, TestClient } from '../helpers/server-fixture.js';

const { FoxgloveClient } = wsProtocol;

type Json = Record<string, any>;
const request = async (base: string, method: string, path: string, body?: unknown, token?: string) => {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
};

const group = (frame: Json, id: string) => (frame.signals as Json[]).find((g) => g.id === id)!;

describe('signals on a fast clock', () => {
  let server: VilsServer;
  let url: string;
  let wsUrl: string;
  const clients: TestClient[] = [];
  const call = (method: string, path: string, body?: unknown) => request(url, method, path, body);
  const client = async (query = '') => {
    const c = new TestClient(wsUrl + query);
    clients.push(c);
    await c.opened();
    return c;
  };

  beforeAll(async () => {
    const clock = new FastClock(0);
    ({ server, url, wsUrl } = await startServer({ config: { npc_target: 3, publish_hz: 10 }, clock, epochNow: () => 1.7e9 + clock.now() }));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.close();
  });

  it('GET /api/signals: the crossing J1 with groups J1.A and J1.B, its approaches, plan and no live input', async () => {
    const r = await call('GET', '/api/signals');
    expect(r.status).toBe(200);
    expect(r.body.signals.map((g: Json) => g.id)).toEqual(['J1.A', 'J1.B']);
    for (const g of r.body.signals) {
      expect(g).toMatchObject({ junction: 'J1', source: expect.stringMatching(/^(plan|transition)$/), left: false, lanes: expect.any(Array) });
      expect(['G', 'g', 'y', 'r', 'o']).toContain(g.code);
    }
    expect(r.body.junctions).toHaveLength(1);
    expect(r.body.unbound).toEqual({ heads: [], stop_lines: [], signs: [] });
    const j = r.body.junctions[0];
    expect(j).toMatchObject({ id: 'J1', control: 'signal', groups: ['J1.A', 'J1.B'], live: null });
    expect(j.approaches.map((a: Json) => a.letter).sort()).toEqual(['A', 'B']);
    expect(j.approaches.flatMap((a: Json) => a.heads).sort()).toEqual(['S1', 'S2']);
    expect(j.approaches.every((a: Json) => a.sign === null && Array.isArray(a.signs))).toBe(true);
    // Webster's cycle for the NPCs the server keeps: the shortest, 60 s
    expect(j.plan).toMatchObject({ source: 'default', cycle_s: 60, yellow_s: 3.5, all_red_s: 2 });
    expect(j.plan.phases[0]).toEqual({ duration_s: 24.5, states: 'rG', by_group: { 'J1.A': 'r', 'J1.B': 'G' } });
    const one = await call('GET', '/api/signals/J1');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: 'J1', control: 'signal', groups: ['J1.A', 'J1.B'] });
    const unknown = await call('GET', '/api/signals/J9');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/unknown junction "J9" \(signalised junctions: J1\)/);
    // the junction figures in the status, beside the NPC quality figures
    const status = await call('GET', '/api/status');
    expect(status.body.junctions).toMatchObject({ junctions: { signal: 1 }, signal_groups: 2, red_light_violations: expect.any(Number) });
    // each NPC's hold in GET /api/npcs
    const npcs = (await call('GET', '/api/npcs')).body.npcs as Json[];
    expect(npcs.length).toBeGreaterThan(0);
    for (const n of npcs) expect(['none', 'red', 'yellow', 'stop_sign', 'give_way', 'box', 'queue']).toContain(n.hold);
    // in the OpenAPI document
    const docs = await call('GET', '/docs/json');
    expect(Object.keys(docs.body.paths)).toEqual(expect.arrayContaining(['/api/signals', '/api/signals/{junction}', '/api/signals/{junction}/plan']));
  });

  it('frames carry every group\'s state (a new key: the rest of the frame as before)', async () => {
    const c = await client();
    const f = await c.next((m) => m.type === 'npc_states' && m.state === 'running');
    expect(Object.keys(f)).toEqual(expect.arrayContaining(['type', 'timestamp', 'sim_time_s', 'step', 'state', 'npcs', 'metrics', 'egos', 'signals']));
    expect(f.signals.map((g: Json) => g.id)).toEqual(['J1.A', 'J1.B']);
    expect(Object.keys(f.signals[0]).sort()).toEqual(['code', 'id', 'junction', 'lanes', 'left', 'numeric_id', 'source', 'state', 'time_to_change_s']);
    const validate = new Ajv({ strict: false }).compile(npcStatesSchema);
    expect(validate(f), JSON.stringify(validate.errors)).toBe(true);
    // time to change in 0.1 s steps
    for (const g of f.signals) if (g.time_to_change_s !== null) expect(Math.round(g.time_to_change_s * 10) / 10).toBe(g.time_to_change_s);
  });

  it('PUT /api/config traffic_rules turns the NPC rules off and on (the signals run either way); a non-boolean is refused', async () => {
    expect((await call('GET', '/api/config')).body.traffic_rules).toBe(true);
    const off = await call('PUT', '/api/config', { traffic_rules: false });
    expect(off.status).toBe(200);
    expect(off.body.traffic_rules).toBe(false);
    expect(server.host.scene.control.enabled).toBe(false);
    const bad = await call('PUT', '/api/config', { traffic_rules: 'no' });
    expect(bad.status).toBe(400);
    expect((await call('PUT', '/api/config', { traffic_rules: true })).body.traffic_rules).toBe(true);
    expect(server.host.scene.control.enabled).toBe(true);
  });

  it('sets J1.A green live: the reply, the status while paused, the next frames, and back to the plan after the timeout', async () => {
    await call('POST', '/api/pause');
    const put = await call('PUT', '/api/signals/J1', { states: { 'J1.A': 'G' }, timeout_s: 20 });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ junction: 'J1', states: { 'J1.A': 'G', 'J1.B': 'r' }, until_s: expect.any(Number), clearance: expect.any(Boolean) });
    const until = put.body.until_s as number;
    const now = server.host.scene.time;
    expect(until).toBeGreaterThan(now + 19.8);
    expect(until).toBeLessThanOrEqual(now + 20.0001);
    const view = await call('GET', '/api/signals/J1');
    expect(view.body.live).toMatchObject({ active: true, states: { 'J1.A': 'G', 'J1.B': 'r' }, set_by: 'rest' });
    expect(view.body.live.until_s).toBeCloseTo(until, 3);
    const c = await client();
    await call('POST', '/api/start');
    // shown once the clearances have run (J1.B yellow, then all red), and driven by the live input
    const live = await c.next((m) => m.type === 'npc_states' && group(m, 'J1.A').code === 'G' && group(m, 'J1.A').source === 'live', 10_000);
    expect(live.sim_time_s).toBeLessThan(until);
    expect(group(live, 'J1.B')).toMatchObject({ code: 'r', source: 'live', time_to_change_s: null });
    // every frame from then until the input runs out shows it
    const after = await c.next((m) => m.type === 'npc_states' && m.sim_time_s > until + 0.15, 10_000);
    const during = c.messages.filter((m) => m.type === 'npc_states' && m.sim_time_s >= live.sim_time_s && m.sim_time_s < until - 0.15);
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((m) => group(m, 'J1.A').code === 'G' && group(m, 'J1.A').source === 'live')).toBe(true);
    // after the timeout: the way back to the plan (J1.A's green ends in a yellow), then the plan
    expect(group(after, 'J1.A').source).not.toBe('live');
    const plan = await c.next((m) => m.type === 'npc_states' && m.sim_time_s > until && m.signals.every((g: Json) => g.source === 'plan'), 10_000);
    expect(plan.sim_time_s).toBeLessThan(until + 15);
    const back = c.messages.filter((m) => m.type === 'npc_states' && m.sim_time_s > until && m.sim_time_s <= plan.sim_time_s);
    expect(back.some((m) => group(m, 'J1.A').code === 'y')).toBe(true);
    const v2 = await call('GET', '/api/signals/J1');
    expect(v2.body.live).toMatchObject({ active: false, remaining_s: 0 });
  });

  it('refuses conflicting greens naming both groups, unknown groups, junctions and states, a phase out of range; nothing is half-applied', async () => {
    const before = (await call('GET', '/api/signals/J1')).body.live;
    const both = await call('PUT', '/api/signals/J1', { states: { 'J1.A': 'G', 'J1.B': 'G' } });
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/J1\.B \(green\) and J1\.A \(green\) conflict|J1\.A \(green\) and J1\.B \(green\) conflict/);
    const group = await call('PUT', '/api/signals/J1', { states: { 'J1.C': 'G' } });
    expect(group.status).toBe(400);
    expect(group.body.message).toMatch(/unknown signal group "J1\.C" at J1 \(its groups: J1\.A, J1\.B\)/);
    const colour = await call('PUT', '/api/signals/J1', { states: { 'J1.A': 'purple' } });
    expect(colour.status).toBe(400);
    expect(colour.body.message).toMatch(/state "purple" of J1\.A/);
    const junction = await call('PUT', '/api/signals/J9', { states: { 'J9.A': 'G' } });
    expect(junction.status).toBe(404);
    expect(junction.body.message).toMatch(/unknown junction "J9" \(signalised junctions: J1\)/);
    const phase = await call('PUT', '/api/signals/J1', { phase: 6 });
    expect(phase.status).toBe(400);
    expect(phase.body.message).toMatch(/phase 6 does not exist: J1's plan has phases 0–5/);
    expect((await call('PUT', '/api/signals/J1', { phase: 1, states: { 'J1.A': 'r' } })).body.message).toMatch(/either states or phase/);
    expect((await call('PUT', '/api/signals/J1', {})).body.message).toMatch(/needs states .* or phase/);
    const timeout = await call('PUT', '/api/signals/J1', { phase: 0, timeout_s: 7200 });
    expect(timeout.status).toBe(400);
    expect(timeout.body.message).toMatch(/timeout_s must be <= 3600/);
    expect((await call('PUT', '/api/signals/J1', { phase: 0, colour: 'red' })).body.message).toMatch(/^body\/colour: unknown key/);
    expect((await call('GET', '/api/signals/J1')).body.live).toEqual(before);
    // a phase in range: that phase's states
    const ok = await call('PUT', '/api/signals/J1', { phase: 3, timeout_s: 5 });
    expect(ok.status).toBe(200);
    expect(ok.body.states).toEqual({ 'J1.A': 'G', 'J1.B': 'r' });
    const released = await call('DELETE', '/api/signals/J1');
    expect(released.body).toEqual({ junction: 'J1', released: true });
    expect((await call('GET', '/api/signals/J1')).body.live).toBeNull();
    expect((await call('DELETE', '/api/signals/J1')).body).toEqual({ junction: 'J1', released: false });
    expect((await call('DELETE', '/api/signals/J9')).status).toBe(404);
  });

  it('changes the plan: refused when a phase lacks its yellow, accepted when valid; the new plan drives the frames', async () => {
    const noYellow = await call('PUT', '/api/signals/J1/plan', {
      phases: [{ duration_s: 30, states: 'Gr' }, { duration_s: 2, states: 'rr' }, { duration_s: 30, states: 'rG' }, { duration_s: 2, states: 'rr' }],
    });
    expect(noYellow.status).toBe(400);
    expect(noYellow.body.message).toMatch(/J1\.A goes from green to red without yellow after phase 1/);
    expect((await call('GET', '/api/signals/J1')).body.plan.source).toBe('default');
    const badCount = await call('PUT', '/api/signals/J1/plan', { green_s: [20] });
    expect(badCount.status).toBe(400);
    expect(badCount.body.message).toMatch(/green_s needs 2 values/);
    expect((await call('PUT', '/api/signals/J9/plan', { green_s: [20, 20] })).status).toBe(404);
    const ok = await call('PUT', '/api/signals/J1/plan', { green_s: [20, 30], offset_s: 5 });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ junction: 'J1', plan: { source: 'api', cycle_s: 61, offset_s: 5 } });
    expect(ok.body.plan.phases.map((p: Json) => p.duration_s)).toEqual([20, 3.5, 2, 30, 3.5, 2]);
    const whole = await call('PUT', '/api/signals/J1/plan', {
      phases: [
        { duration_s: 30, states: { 'J1.A': 'G' } }, { duration_s: 4, states: { 'J1.A': 'y' } }, { duration_s: 2, states: 'rr' },
        { duration_s: 20, states: 'rG' }, { duration_s: 4, states: 'ry' }, { duration_s: 2, states: 'rr' },
      ],
      yellow_s: 4,
    });
    expect(whole.status).toBe(200);
    expect(whole.body.plan).toMatchObject({ cycle_s: 62, offset_s: 5, yellow_s: 4, source: 'api' });
    // the frames follow it: (t − 5) mod 62 < 30 is J1.A's green
    const c = await client();
    const f = await c.next((m) => m.type === 'npc_states' && m.signals.every((g: Json) => g.source === 'plan') && (((m.sim_time_s - 5) % 62) + 62) % 62 > 1 && (((m.sim_time_s - 5) % 62) + 62) % 62 < 29, 10_000);
    expect(group(f, 'J1.A').code).toBe('G');
    expect(group(f, 'J1.B').code).toBe('r');
  });

  it('WebSocket: an operator\'s signal_input applies and is acknowledged; a stream of them at well over 10 Hz is neither refused nor rate-limited', async () => {
    const c = await client();
    const applied: string[] = [];
    const stop = server.host.inputs.onCall((e) => {
      if (e.call.kind === 'signal_live') applied.push(e.error ?? 'ok');
    });
    const errorsBefore = server.host.counters.errors;
    c.send({ type: 'signal_input', data: { junction: 'J1', states: { 'J1.B': 'green' }, timeout_s: 2 } });
    const ack = await c.next((m) => m.type === 'signal_ack');
    expect(ack).toMatchObject({ input: 'signal_input', data: { junction: 'J1', states: { 'J1.A': 'r', 'J1.B': 'G' }, until_s: expect.any(Number) } });
    const view = (await call('GET', '/api/signals/J1')).body.live;
    expect(view.set_by).toMatch(/^stream client \d+, 127\.0\.0\.1$/);
    // a roadside unit's feed: 30 messages at 50 Hz (five times the usual 10 Hz)
    for (let k = 0; k < 30; k++) {
      c.send({ type: 'signal_input', data: { junction: 'J1', phase: k < 15 ? 0 : 3, timeout_s: 1 } });
      await new Promise((r) => setTimeout(r, 20));
    }
    const until = Date.now() + 30_000; // a hang guard
    while (applied.length < 31 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    stop();
    expect(applied).toEqual(Array(31).fill('ok'));
    expect(c.messages.filter((m) => m.type === 'error')).toEqual([]);
    expect(server.host.counters.errors).toBe(errorsBefore);
    expect(server.host.runner.stats.stepErrors).toBe(0);
    // refusals come back as errors with the reason, counted; the connection stays up
    c.send({ type: 'signal_input', data: { junction: 'J1', states: { 'J1.A': 'G', 'J1.B': 'G' } } });
    expect((await c.next((m) => m.type === 'error')).error).toMatch(/^signal_input: refused: .*J1\.[AB] \(green\) and J1\.[AB] \(green\) conflict/);
    c.send({ type: 'signal_input', data: { junction: 'J7', phase: 0 } });
    expect((await c.next((m) => m.type === 'error' && /J7/.test(m.error))).error).toMatch(/^signal_input: unknown junction "J7" \(signalised junctions: J1\)/);
    // (1e400 parses to Infinity)
    c.send('{"type": "signal_input", "data": {"junction": "J1", "phase": 1, "timeout_s": 1e400}}');
    expect((await c.next((m) => m.type === 'error' && /timeout_s/.test(m.error))).error).toMatch(/^signal_input: data\.timeout_s must be <= 3600/);
    c.send({ type: 'signal_release', data: { junction: 'J1' } });
    expect(await c.next((m) => m.type === 'signal_ack' && m.input === 'signal_release')).toMatchObject({ data: { junction: 'J1', released: expect.any(Boolean) } });
    expect(server.host.counters.errors).toBe(errorsBefore + 3);
    expect(c.closeCode).toBeNull();
  });

  it('binary clients get signal_states text messages (their frames carry NPCs and egos only)', async () => {
    const ws = new WebSocket(`${wsUrl}?format=binary`);
    const texts: Json[] = [];
    let binary = 0;
    ws.on('message', (data, isBinary) => {
      if (isBinary) binary++;
      else texts.push(JSON.parse(data.toString()) as Json);
    });
    await new Promise((r) => ws.once('open', r));
    await call('PUT', '/api/signals/J1', { phase: 0, timeout_s: 30 });
    const end = Date.now() + 5000;
    while (!(texts.some((m) => m.signals?.some((g: Json) => g.source === 'live')) && binary > 20) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    ws.close();
    const states = texts.filter((m) => m.type === 'signal_states');
    expect(states.length).toBeGreaterThanOrEqual(2);
    expect(binary).toBeGreaterThan(states.length);
    const validate = new Ajv({ strict: false }).compile(signalStatesSchema);
    for (const m of states) expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
    expect(states[0].signals.map((g: Json) => g.id)).toEqual(['J1.A', 'J1.B']);
    // one per change of state or source (the once-a-second refresh is wall-clock time: a few at most here)
    const keys = states.map((m) => m.signals.map((g: Json) => g.code + g.source).join());
    const changes = keys.filter((k, i) => i === 0 || k !== keys[i - 1]).length;
    expect(states.length - changes).toBeLessThanOrEqual(6);
    expect(states.some((m) => m.signals.some((g: Json) => g.source === 'live'))).toBe(true);
    await call('DELETE', '/api/signals/J1');
  });

  it('Foxglove: /vils/signals is advertised and carries the states; /vils/scene draws each stop line in its colour', async () => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/foxglove`, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
    const fox = new FoxgloveClient({ ws: ws as never });
    const channels: Json[] = [];
    const got = new Map<string, Json[]>();
    const bySub = new Map<number, string>();
    await new Promise<void>((resolve, reject) => {
      fox.on('error', reject);
      fox.on('advertise', (chs) => {
        channels.push(...(chs as Json[]));
        for (const ch of chs as Json[]) if (ch.topic === '/vils/signals' || ch.topic === '/vils/scene') bySub.set(fox.subscribe(ch.id), ch.topic);
        resolve();
      });
    });
    fox.on('message', ({ subscriptionId, data }) => {
      const topic = bySub.get(subscriptionId)!;
      got.set(topic, [...(got.get(topic) ?? []), JSON.parse(new TextDecoder().decode(data as Uint8Array)) as Json]);
    });
    const end = Date.now() + 5000;
    while (((got.get('/vils/signals')?.length ?? 0) < 5 || (got.get('/vils/scene')?.length ?? 0) < 5) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    fox.close();
    const ch = channels.find((c) => c.topic === '/vils/signals')!;
    expect(ch).toMatchObject({ encoding: 'json', schemaName: 'vils.signals', schemaEncoding: 'jsonschema' });
    const validate = new Ajv({ strict: false }).compile(JSON.parse(ch.schema) as object);
    const signals = got.get('/vils/signals')!;
    expect(signals.length).toBeGreaterThanOrEqual(5);
    for (const m of signals) expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
    expect(signals[0].signals.map((g: Json) => g.id)).toEqual(['J1.A', 'J1.B']);
    const fx = await import('@foxglove/schemas/jsonschema.js');
    const validateScene = new Ajv({ strict: false }).compile(fx.SceneUpdate);
    const scene = got.get('/vils/scene')!.at(-1)!;
    expect(validateScene(scene), JSON.stringify(validateScene.errors)).toBe(true);
    const lines = scene.entities.filter((e: Json) => e.id.startsWith('signal/'));
    expect(lines.map((e: Json) => e.id).sort()).toEqual(['signal/J1.A', 'signal/J1.B']);
    const colours: Record<string, [number, number]> = { green: [0, 1], green_yield: [0, 1], yellow: [0.9, 1], red: [0.9, 0.2], off: [0.5, 0.6] };
    for (const e of lines) {
      const state = e.metadata.find((m: Json) => m.key === 'state').value as string;
      const { r, g } = e.lines[0].color;
      if (state === 'red') expect(r > 0.9 && g < 0.2).toBe(true);
      else if (state === 'yellow') expect(r > 0.9 && g > 0.7).toBe(true);
      else if (state.startsWith('green')) expect(g > 0.8 && r < 0.6).toBe(true);
      else expect(Math.abs(r - g)).toBeLessThan(0.01);
      expect(colours[state]).toBeDefined();
      expect(e.lines[0].points.length).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('signals with tokens, and on a map without signals', () => {
  const OPERATOR = 'operator-token-0123456789';
  const VIEWER = 'viewer-token-0123456789';
  let server: VilsServer;
  let url: string;
  let wsUrl: string;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vils-sig-'));
    const plain = JSON.parse(readFileSync(defaultMapPath(), 'utf8')) as Json;
    delete plain.traffic_control;
    const plainPath = join(dir, 'plain.json');
    writeFileSync(plainPath, JSON.stringify(plain));
    const access = accessSettings({ tokens: [{ token: OPERATOR, role: 'operator', name: 'rsu' }, { token: VIEWER, role: 'viewer', name: 'screen' }] }, {});
    ({ server, url, wsUrl } = await startServer({ config: { npc_target: 2 }, access, scenes: [{ name: 'plain', mapPath: plainPath, config: { npc_target: 2 } }] }));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.close();
  });

  it('REST: reads need a viewer, writes an operator (401 without a token, 403 for a viewer)', async () => {
    expect((await request(url, 'GET', '/api/signals')).status).toBe(401);
    expect((await request(url, 'GET', '/api/signals', undefined, VIEWER)).status).toBe(200);
    const anon = await request(url, 'PUT', '/api/signals/J1', { phase: 0 });
    expect(anon.status).toBe(401);
    for (const [method, path, body] of [['PUT', '/api/signals/J1', { phase: 0 }], ['DELETE', '/api/signals/J1', undefined], ['PUT', '/api/signals/J1/plan', { green_s: [20, 20] }]] as const) {
      const r = await request(url, method, path, body, VIEWER);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.message).toMatch(/needs a operator token; screen is a viewer/);
    }
    expect((await request(url, 'GET', '/api/signals/J1', undefined, VIEWER)).body.live).toBeNull();
    const ok = await request(url, 'PUT', '/api/signals/J1', { phase: 0, timeout_s: 60 }, OPERATOR);
    expect(ok.status).toBe(200);
    expect((await request(url, 'GET', '/api/signals/J1', undefined, VIEWER)).body.live).toMatchObject({ active: true, set_by: 'rest' });
    expect((await request(url, 'DELETE', '/api/signals/J1', undefined, OPERATOR)).body).toEqual({ junction: 'J1', released: true });
  });

  it('WebSocket: signal_input from a viewer is refused with the reason; from an operator it applies', async () => {
    const viewer = new TestClient(`${wsUrl}?token=${VIEWER}`);
    const operator = new TestClient(`${wsUrl}?token=${OPERATOR}`);
    clients.push(viewer, operator);
    await Promise.all([viewer.opened(), operator.opened()]);
    const errors = server.host.counters.errors;
    viewer.send({ type: 'signal_input', data: { junction: 'J1', phase: 0 } });
    expect((await viewer.next((m) => m.type === 'error')).error).toMatch(/^signal_input: screen may not set signals \(viewer role\): that needs an operator token/);
    viewer.send({ type: 'signal_release', data: { junction: 'J1' } });
    expect((await viewer.next((m) => m.type === 'error' && m.error.startsWith('signal_release'))).error).toMatch(/needs an operator token/);
    expect(server.host.counters.errors).toBe(errors + 2);
    expect((await request(url, 'GET', '/api/signals/J1', undefined, VIEWER)).body.live).toBeNull();
    // the states shown now, held live (no clearance to run, unless the plan moves on in between)
    const now = await viewer.next((m) => m.type === 'npc_states' && m.state === 'running');
    const states = Object.fromEntries(now.signals.map((g: Json) => [g.id, g.code]));
    operator.send({ type: 'signal_input', data: { junction: 'J1', states, timeout_s: 60 } });
    const ack = await operator.next((m) => m.type === 'signal_ack');
    expect(ack.data).toMatchObject({ junction: 'J1', states });
    expect((await request(url, 'GET', '/api/signals/J1', undefined, VIEWER)).body.live).toMatchObject({ active: true, set_by: expect.stringMatching(/^stream client \d+, rsu \(127\.0\.0\.1\)$/) });
    const f = await viewer.next((m) => m.type === 'npc_states' && m.signals.every((g: Json) => g.code === states[g.id] && g.source === 'live'), 8000);
    expect(f.signals).toHaveLength(2);
  });

  it('a map without signals: frames carry an empty list, the API lists its junction without groups, writes are 404', async () => {
    const c = new TestClient(`${wsUrl.replace('/ws/vils/stream', '/scenes/plain/ws/vils/stream')}?token=${VIEWER}`);
    clients.push(c);
    await c.opened();
    const f = await c.next((m) => m.type === 'npc_states');
    expect(f.signals).toEqual([]);
    const r = await request(url, 'GET', '/scenes/plain/api/signals', undefined, VIEWER);
    expect(r.body.signals).toEqual([]);
    expect(r.body.junctions.map((j: Json) => [j.id, j.control, j.groups, j.plan])).toEqual([['J1', expect.not.stringMatching(/^signal$/), [], null]]);
    const put = await request(url, 'PUT', '/scenes/plain/api/signals/J1', { phase: 0 }, OPERATOR);
    expect(put.status).toBe(404);
    expect(put.body.message).toMatch(/junction "J1" has no signals \(control: \w+\); this map has no signalised junction/);
    expect((await request(url, 'GET', '/scenes/plain/api/status', undefined, VIEWER)).body.junctions).toMatchObject({ signal_groups: 0 });
  });
});
