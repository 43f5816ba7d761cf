/**
 * Exact replay end to end: a real server (real HTTP and WebSocket) on a virtual clock records 60 s of
 * simulation time with an ego driving, a second one without heading (a single-antenna GNSS, whose yaw the
 * scene derives from its fixes), REST commands (spawns, a removal, a settings change) and two scripted people (a
 * pedestrian and a cyclist, reported as a test case's story reports its actors: listed among the NPCs with their
 * kind), the recording is closed, and `replayRecording` makes the session again: 0 differences, every frame
 * compared, the people's kinds included.
 * Then the same recording against another model must differ, and say where.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildLateFusionOnnx, checkLateFusionWeights, readTorchCheckpoint } from '../../src/policy/index.js';
import { replayRecording, describeDifference, readRecording, decodeJson, base64ToF64, unpackNpcs } from '../../src/record/index.js';
import type { FrameRecord, SceneCallRecord } from '../../src/record/log.js';
import { FastClock } from './fast-clock.js';
import { randomLateFusionTensors } from '../helpers/policy-fixtures.js';
import { startServer } from '../helpers/server-fixture.js';
import { writeTorchZip } from '../helpers/torch-writer.js';

// Inputs arrive between policy steps (a step is one synchronous call: test/server/atomic-steps.test.ts), at
// any time of a runner's tick: what replay must make again exactly. This file runs in a process of its own
// (vitest pool 'forks').

const SIM_SECONDS = 60;
let dir: string;
let file: string;
const spawned: number[] = [];
let spawnRefused = 0;
let egoReports = 0;
let frames = 0;
let peopleReports = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vils-rec-'));
  const clock = new FastClock(0);
  const { server, url, wsUrl } = await startServer({
    config: { npc_target: 12, publish_hz: 20 }, clock, epochNow: () => 1.7e9 + clock.now(),
    recording: { dir, maxFileMb: 512, maxTotalMb: 0, foxgloveHz: 5 },
  });
  const host = server.host;
  // an ego that drives along the first lane, one report per frame it receives (the ROS 2 bridge pattern)
  const lanes = host.map.scene.roads.filter((r) => r.type === 'lane' && r.geometry.length > 20);
  const lane = lanes[0].geometry;
  // the single-antenna car drives along another lane: no heading in its messages
  const lane2 = lanes[Math.floor(lanes.length / 2)].geometry;
  const lane3 = lanes[Math.floor((3 * lanes.length) / 4)].geometry;
  const ws = new WebSocket(wsUrl);
  await new Promise((r) => ws.once('open', r));
  // its own connection (one connection's rate limit is sized for one car)
  const ws2 = new WebSocket(wsUrl);
  await new Promise((r) => ws2.once('open', r));
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as { type: string; sim_time_s?: number; timestamp?: number };
    if (m.type !== 'npc_states') return;
    frames++;
    const t = m.sim_time_s ?? 0;
    // stop now and then, so the ego goes stale and comes back
    if (t % 15 > 12) return;
    const i = Math.floor(t * 2) % (lane.length - 1);
    const p = lane[i];
    const q = lane[i + 1];
    const ll = host.geo.toLatLon(p.x, p.y);
    const heading = host.geo.yawToHeading(Math.atan2(q.y - p.y, q.x - p.x), p.x, p.y);
    // stamped on the server's clock, as a client whose clock is synchronised with it (fixes are judged on that clock)
    ws.send(JSON.stringify({ type: 'ego_state', timestamp: m.timestamp, data: { lat: ll.lat, lon: ll.lon, heading: (heading + 360) % 360, speed: 5 } }));
    egoReports++;
    const p2 = lane2[Math.floor(t * 3) % lane2.length];
    const ll2 = host.geo.toLatLon(p2.x, p2.y);
    ws2.send(JSON.stringify({ type: 'ego_state', ego_id: 'gnss', timestamp: m.timestamp, data: { lat: ll2.lat, lon: ll2.lon, speed: t % 10 > 8 ? 0 : 6 } }));
    egoReports++;
    // two scripted people, as a test case reports its actors (src/scenario/story-host.ts): a pedestrian walking
    // across the first lane and back at 1.4 m/s, a cyclist riding along a third lane at 4 m/s
    const w = lane[Math.floor(lane.length / 3)];
    const across = Math.sin(t * 0.2) * 4;
    const c = lane3[Math.floor(t * 4) % lane3.length];
    const c2 = lane3[(Math.floor(t * 4) + 1) % lane3.length];
    void host.inputs.updateEgo({ egoId: 'walker', x: w.x + across, y: w.y - across, yaw: Math.cos(t * 0.2) >= 0 ? -Math.PI / 4 : (3 * Math.PI) / 4, speed: 1.4, length: 0.5, width: 0.6, simulated: true, actor: true, kind: 'pedestrian' }, t);
    void host.inputs.updateEgo({ egoId: 'rider', x: c.x, y: c.y, yaw: Math.atan2(c2.y - c.y, c2.x - c.x), speed: 4, length: 1.8, width: 0.6, simulated: true, actor: true, kind: 'cyclist' }, t);
    peopleReports += 2;
  });
  const post = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  let nextAction = 2;
  let k = 0;
  while (host.runner.simNow() < SIM_SECONDS) {
    if (host.runner.simNow() >= nextAction) {
      nextAction += 3;
      const p = lane[(k * 7) % lane.length];
      const r = await post('POST', '/api/npcs', { x: p.x, y: p.y, speed: 3 });
      if (r.status === 200) spawned.push(r.body.id as number);
      else spawnRefused++;
      if (k % 4 === 3 && spawned.length > 0) await post('DELETE', `/api/npcs/${spawned[0]}`);
      if (k === 5) expect((await post('PUT', '/api/config', { npc_target: 8, ego_timeout_s: 0.6 })).status).toBe(200);
      if (k === 9) {
        // refused: outside the map
        expect((await post('POST', '/api/npcs', { x: 1e6, y: 0 })).status).toBe(400);
        spawnRefused++;
      }
      k++;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  ws.close();
  ws2.close();
  await server.close();
  const files = readdirSync(dir).filter((n) => n.endsWith('.mcap'));
  expect(files).toHaveLength(1);
  file = join(dir, files[0]);
}, 240_000);

describe('exact replay', () => {
  it('recorded 60 s of simulation time with an ego and REST commands', async () => {
    // one spawn every 3 s of simulation time (some refused: too close to another vehicle, no lane ahead, …)
    expect(spawned.length + spawnRefused).toBeGreaterThanOrEqual(19);
    expect(spawned.length).toBeGreaterThanOrEqual(5);
    expect(egoReports).toBeGreaterThan(500);
    expect(frames).toBeGreaterThan(1000);
    const kinds = new Map<string, number>();
    let refused = 0;
    const gnssPoses: Array<Record<string, unknown>> = [];
    for await (const item of readRecording(file, { topics: new Set(['/vils/calls']) })) {
      if (item.type !== 'message') continue;
      const c = decodeJson<SceneCallRecord>(item.message.data);
      kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
      if (c.kind === 'spawn' && c.error) refused++;
      if (c.kind === 'ego' && (c.args as { ego_id?: string }).ego_id === 'gnss') gnssPoses.push((c.args as { pose: Record<string, unknown> }).pose);
    }
    // the single-antenna car's reports are logged as they came, without a yaw: a replay derives it again
    expect(gnssPoses.length).toBeGreaterThan(200);
    expect(gnssPoses.every((p) => !('yaw' in p) && typeof p.x === 'number')).toBe(true);
    const sources = new Set<string>();
    for await (const item of readRecording(file, { topics: new Set(['/vils/frame']) })) {
      if (item.type !== 'message') continue;
      for (const e of decodeJson<{ egos: Array<{ egoId: string; headingSource?: string }> }>(item.message.data).egos) if (e.egoId === 'gnss') sources.add(e.headingSource ?? '?');
    }
    expect(sources).toContain('course');
    expect(sources).toContain('held');
    // the people are in the recorded frames among the NPCs, with their kinds (frame format 3: the flags column)
    expect(peopleReports).toBeGreaterThan(500);
    const kindsSeen = new Map<string, number>();
    for await (const item of readRecording(file, { topics: new Set(['/vils/frame']) })) {
      if (item.type !== 'message') continue;
      const rec = decodeJson<FrameRecord>(item.message.data);
      expect(rec.v).toBe(3);
      for (const n of unpackNpcs(base64ToF64(rec.npcs))) kindsSeen.set(n.kind ?? 'vehicle', (kindsSeen.get(n.kind ?? 'vehicle') ?? 0) + 1);
    }
    expect(kindsSeen.get('pedestrian')).toBeGreaterThan(1000);
    expect(kindsSeen.get('cyclist')).toBeGreaterThan(1000);
    expect(kindsSeen.get('vehicle')).toBeGreaterThan(10_000);
    // and in the JSON frames the server sent
    let jsonPeople = 0;
    for await (const item of readRecording(file, { topics: new Set(['/vils/npc_states']) })) {
      if (item.type !== 'message') continue;
      const f = decodeJson<{ npcs: Array<{ kind: string; actor?: string }> }>(item.message.data);
      for (const n of f.npcs) {
        expect(['vehicle', 'pedestrian', 'cyclist']).toContain(n.kind);
        if (n.actor === 'walker') expect(n.kind).toBe('pedestrian');
        if (n.actor === 'rider') expect(n.kind).toBe('cyclist');
        if (n.kind !== 'vehicle') jsonPeople++;
      }
    }
    expect(jsonPeople).toBeGreaterThan(2000);
    expect(kinds.get('advance')).toBeGreaterThan(1000);
    // the last report or two may still be on the wire when the server closes (the people's go straight to the scene)
    expect(kinds.get('ego')).toBeGreaterThanOrEqual(egoReports + peopleReports - 4);
    expect(kinds.get('ego')).toBeLessThanOrEqual(egoReports + peopleReports);
    expect(kinds.get('spawn')).toBe(spawned.length + spawnRefused);
    expect(refused).toBe(spawnRefused); // refused spawns are in the log too (they may draw random numbers)
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(kinds.get('remove_npc')).toBeGreaterThan(0);
    expect(kinds.get('configure')).toBe(1);
    expect(kinds.get('reset')).toBe(1);
  });

  it('replays it with 0 differences, every NPC state bit for bit', async () => {
    const r = await replayRecording(file);
    if (r.first) throw new Error(describeDifference(r.first));
    expect(r.differences).toBe(0);
    expect(r.simTimeS).toBeGreaterThanOrEqual(SIM_SECONDS - 0.2);
    expect(r.frames).toBeGreaterThan(1000);
    expect(r.npcStates).toBeGreaterThan(10_000);
    expect(r.speed).toBeGreaterThan(1);
  }, 120_000);

  it('finds and reports the first difference when the NPCs would behave otherwise (another model)', async () => {
    const other = join(dir, 'other-policy.onnx');
    writeFileSync(other, buildLateFusionOnnx(checkLateFusionWeights(readTorchCheckpoint(writeTorchZip(randomLateFusionTensors(99))))));
    await expect(replayRecording(file, { modelPath: other })).rejects.toThrow(/not the recorded one/);
    const r = await replayRecording(file, { modelPath: other, allowModelMismatch: true });
    expect(r.differences).toBeGreaterThan(0);
    expect(r.first).not.toBeNull();
    expect(describeDifference(r.first!)).toMatch(/step \d+: /);
  }, 120_000);
});
