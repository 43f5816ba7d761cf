import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VilsServer } from '../../src/server/app.js';
import { startServer } from '../helpers/server-fixture.js';

let server: VilsServer;
let url: string;
const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(url + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

beforeAll(async () => {
  ({ server, url } = await startServer({ config: { npc_target: 5 }, autostart: false }));
});
afterAll(async () => server?.close());

describe('REST /api', () => {
  it('health, status and the OpenAPI document', async () => {
    expect((await call('GET', '/api/health')).body).toMatchObject({ status: 'ok' });
    const s = (await call('GET', '/api/status')).body;
    expect(s).toMatchObject({ state: 'stopped', step: 0, npcs: 5, map: 'demo-track.json', loop: { overruns: expect.any(Number) } });
    expect(s.convergence_deg).toBeCloseTo(-1.38, 2);
    const docs = await call('GET', '/docs/json');
    expect(docs.status).toBe(200);
    expect(Object.keys(docs.body.paths)).toEqual(expect.arrayContaining(['/api/health', '/api/status', '/api/config', '/api/npcs', '/api/npcs/{id}', '/api/egos', '/api/egos/{id}', '/api/init', '/api/reset', '/api/start', '/api/pause']));
    expect((await fetch(`${url}/docs`)).status).toBe(200);
  });

  it('reads and updates the config, rejecting bad values with the reason', async () => {
    expect((await call('GET', '/api/config')).body).toMatchObject({ publish_hz: 10, ego_timeout_s: 0.5, ego_forget_s: 10, npc_target: 5, max_egos: 32 });
    expect((await call('PUT', '/api/config', { ego_timeout_s: 1.5 })).body.ego_timeout_s).toBe(1.5);
    const bad = await call('PUT', '/api/config', { publish_hz: 'fast' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/publish_hz must be number/);
    expect((await call('PUT', '/api/config', { publish_hz: 5 })).body.message).toMatch(/publish_hz must be >= 10/);
    expect((await call('PUT', '/api/config', { npc_target: 64 })).body.message).toMatch(/npc_target must be <= 63/);
    expect((await call('PUT', '/api/config', { warp: 9 })).body.message).toMatch(/^body\/warp: unknown key/);
    expect((await call('PUT', '/api/config', '{"publish_hz": ')).status).toBe(400);
    // a setting that sizes the world is refused at runtime, with the reason, and nothing else in the patch applies
    const restart = await call('PUT', '/api/config', { max_egos: 8, npc_target: 3 });
    expect(restart.status).toBe(400);
    expect(restart.body.message).toMatch(/max_egos .* only takes effect when the server restarts/);
    expect((await call('GET', '/api/config')).body).toMatchObject({ publish_hz: 10, npc_target: 5, max_egos: 32 });
    expect((await call('PUT', '/api/config', { max_egos: 32, publish_hz: 20 })).body).toMatchObject({ publish_hz: 20 }); // unchanged value: fine
    expect((await call('GET', '/api/status')).body.publish_hz).toBe(20);
    await call('PUT', '/api/config', { publish_hz: 10 });
  });

  it('spawns NPCs by x,y or lat,lon with heading and goal, lists and deletes them', async () => {
    await call('DELETE', '/api/npcs');
    const a = await call('POST', '/api/npcs', { x: 40, y: 41, speed: 4 }); // on the first straight: lane and goal found
    expect(a.status).toBe(200);
    const b = await call('POST', '/api/npcs', { lat: 37.3646, lon: 126.7240, heading: 45, speed: 2, goal: { x: 60, y: 60 } });
    expect(b.status).toBe(200);
    const list = (await call('GET', '/api/npcs')).body.npcs;
    expect(list.map((n: { id: number }) => n.id).sort()).toEqual([a.body.id, b.body.id].sort());
    const nb = list.find((n: { id: number }) => n.id === b.body.id);
    expect([nb.goal_x, nb.goal_y]).toEqual([60, 60]);
    expect(nb.heading).toBeCloseTo(45, 3);
    expect((await call('POST', '/api/npcs', { x: 1, y: 2, lat: 37.3, lon: 126.7 })).body.message).toMatch(/either x and y .* or lat and lon/);
    expect((await call('POST', '/api/npcs', { x: 90000, y: 0, goal: { x: 0, y: 0 } })).body.message).toMatch(/outside the map area/);
    expect((await call('POST', '/api/npcs', { x: 0, y: 0, speed: -3 })).status).toBe(400);
    expect((await call('DELETE', `/api/npcs/${a.body.id}`)).body).toEqual({ removed: a.body.id });
    expect((await call('DELETE', `/api/npcs/${a.body.id}`)).status).toBe(404);
    expect((await call('DELETE', '/api/npcs/abc')).status).toBe(400);
    expect((await call('DELETE', '/api/npcs')).body).toMatchObject({ removed: 1, npc_target: 5, refill: true });
  });

  it('refuses a spawn on top of a vehicle, or against a one-way lane, and says why', async () => {
    await call('PUT', '/api/config', { npc_target: 0 });
    await call('DELETE', '/api/npcs');
    const a = await call('POST', '/api/npcs', { x: 40, y: 41, speed: 4 });
    expect(a.status).toBe(200);
    const on = await call('POST', '/api/npcs', { x: 41, y: 41.5, speed: 4 });
    expect(on.status).toBe(400);
    expect(on.body.message).toMatch(new RegExp(`on top of NPC ${a.body.id}`));
    const { scene } = server.host;
    const lane = scene.lanes.locate(40, 41, undefined, 5)!;
    const laneYaw = scene.lanes.headingAt(lane.lane, lane.s);
    const wrong = await call('POST', '/api/npcs', { x: 60, y: 60, yaw: laneYaw + Math.PI, speed: 4 });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/runs the other way/);
    expect((await call('DELETE', '/api/npcs')).body).toMatchObject({ removed: 1, npc_target: 0, refill: false });
    await call('PUT', '/api/config', { npc_target: 5 });
  });

  it('keeps NPC ids stable across a reset (the same scenario gets the same ids)', async () => {
    await call('POST', '/api/reset');
    const first = (await call('GET', '/api/npcs')).body.npcs.map((n: { id: number }) => n.id);
    await call('POST', '/api/reset');
    const again = (await call('GET', '/api/npcs')).body.npcs.map((n: { id: number }) => n.id);
    expect(first).toEqual([1, 2, 3, 4, 5]);
    expect(again).toEqual(first);
  });

  it('init, start, pause and reset drive the loop', async () => {
    const init = await call('POST', '/api/init', { npc_count: 7, seed: 3 });
    expect(init.body).toMatchObject({ state: 'running', npcs: 7 });
    await new Promise((r) => setTimeout(r, 350));
    expect((await call('POST', '/api/pause')).body).toEqual({ state: 'paused' });
    const s1 = (await call('GET', '/api/status')).body.step;
    expect(s1).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 250));
    expect((await call('GET', '/api/status')).body.step).toBe(s1);
    expect((await call('POST', '/api/reset')).body).toMatchObject({ step: 0, npcs: 7, state: 'paused' });
    expect((await call('POST', '/api/start')).body).toEqual({ state: 'running' });
    await new Promise((r) => setTimeout(r, 250));
    expect((await call('GET', '/api/status')).body.step).toBeGreaterThan(0);
    await call('POST', '/api/pause');
  });

  it('init takes no body (every field is optional); start: false leaves it paused', async () => {
    const noBody = await fetch(`${url}/api/init`, { method: 'POST' });
    expect(noBody.status).toBe(200);
    expect(await noBody.json()).toMatchObject({ state: 'running', step: 0 });
    expect((await call('POST', '/api/init', { start: false })).body).toMatchObject({ state: 'paused', step: 0 });
    await new Promise((r) => setTimeout(r, 250));
    expect((await call('GET', '/api/status')).body.step).toBe(0);
  });

  it('lists egos and forgets one on DELETE /api/egos/:id', async () => {
    const { scene, geo } = server.host;
    const p = geo.toLocal(37.3649, 126.7243);
    scene.updateEgo({ egoId: 'car-x', x: p.x, y: p.y, yaw: 0, speed: 0 });
    expect((await call('GET', '/api/egos')).body.egos.map((e: { ego_id: string }) => e.ego_id)).toEqual(['car-x']);
    expect((await call('DELETE', '/api/egos/car-x')).body).toEqual({ removed: 'car-x' });
    expect((await call('DELETE', '/api/egos/car-x')).status).toBe(404);
    expect((await call('GET', '/api/egos')).body.egos).toEqual([]);
  });
});
