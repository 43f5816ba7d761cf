/**
 * A test case served live (`vils serve --scenario configs/cases/cut_in.yaml --story-ego car`): a "real" car
 * drives over the WebSocket (ego_state fixes, lat/lon and heading, one per frame) out of R5 into the demo
 * track's R6 at 50 km/h; the operator arms an attempt over REST before the case's start line, the cutter is
 * placed 30 m ahead in the left lane when the car crosses the line at speed and is listed among the NPCs of the
 * frames (as the car's stack sees traffic), the cut-in fires on the car's own TTC, and the verdict is the car's:
 * a car that brakes for the cutter passes, one that does not fails; a car standing at the start never opens the
 * gate and the attempt is not started, never failed. The server runs on a clock the test steps one frame at a
 * time, after the car has answered it: nothing depends on the machine's speed.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { startServe, type ServeHandle } from '../../src/cli/serve.js';
import { decodeJson, describeDifference, readRecording, replayRecording } from '../../src/record/index.js';
import { serveCase } from '../helpers/live-case.js';
import { TestClient, testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { SteppedClock } from '../helpers/stepped-clock.js';

const CASES = join(PROJECT_ROOT, 'configs', 'cases');
const CASE = join(CASES, 'cut_in.yaml');
const V0 = 50 / 3.6;
/** the car starts this far before the end of R5 (the case's start line is 3.5 m into R6) */
const RUN_UP_M = 20;

/** A frame as the car received it, and where the car was put for it. */
interface Frame {
  t: number;
  m: Record<string, any>;
  me: { x: number; y: number; yaw: number };
  url: string;
}

interface Drive {
  brakes: boolean;
  recordDir?: string;
  file?: string;
  /** the car's speed [m/s] (it stands with 0) */
  v0?: number;
  frames?: number;
  /** where the car starts: this far before the end of R5 (default RUN_UP_M) */
  runUpM?: number;
  /** from this time on the car drives in the lane left of its own [s] */
  leftFrom?: number;
  /** after each frame (the car has answered it); true: stop driving */
  onFrame?: (f: Frame) => Promise<boolean | void>;
  /** frames to drive on after the attempt's end (the car brakes to a stop at 6 m/s² then) */
  framesAfterEnd?: number;
}

/** no body at all (not even an empty JSON one) */
const NO_BODY = Symbol('no body');

/** POST /api/story/arm with the attempt number the client sees (as JSON) */
const arm = (url: string, body: unknown = { attempt: 0 }) =>
  fetch(`${url}/api/story/arm`, { method: 'POST', ...(body === NO_BODY ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });

describe('a test case served live, the real car under test', () => {
  let serve: ServeHandle | null = null;
  let client: TestClient | null = null;
  const host = () => serve!.server.host;
  afterEach(async () => {
    client?.ws.close();
    await serve?.server.close();
    serve = null;
    client = null;
  });

  async function drive({ brakes, recordDir, file = CASE, v0 = V0, frames = 400, runUpM = RUN_UP_M, leftFrom = Infinity, onFrame, framesAfterEnd = 0 }: Drive) {
    const live = await serveCase(file, recordDir);
    ({ serve, client } = live);
    const { clock, url } = live;
    const host = live.serve.server.host;
    // the car comes out of R5 into R6 on the lanes' centre lines: armed before the start line, it crosses it at speed
    const lanes = host.scene.lanes;
    const r5 = lanes.laneById('R5');
    const s0 = lanes.lanes[r5].length - runUpM;
    let s = 0, v = v0, lastT = NaN, armed = false, sawActorInFrames = false, afterEnd = -1;
    const fix = (t: number) => {
      if (Number.isFinite(lastT)) s += v * (t - lastT);
      lastT = t;
      let p: { x: number; y: number; yaw: number } = lanes.ahead(r5, s0, s);
      if (t >= leftFrom) {
        const at = lanes.ahead(r5, s0, s);
        p = lanes.pose(lanes.lanes[at.lane].left, at.s);
      }
      const ll = host.geo.toLatLon(p.x, p.y);
      client!.ws.send(JSON.stringify({ type: 'ego_state', ego_id: 'car', timestamp: 1.8e9 + t, data: { lat: ll.lat, lon: ll.lon, heading: host.geo.yawToHeading(p.yaw, p.x, p.y), speed: v } }));
      return p;
    };
    let seen = 0;
    for (let frame = 0; frame < frames; frame++) {
      // the clock moves on until the next frame is out; the car answers it before the clock moves again
      const m = await new Promise<Record<string, any>>((resolve, reject) => {
        const guard = Date.now() + 30_000;
        const check = () => {
          const msgs = client!.messages;
          let next: Record<string, any> | undefined;
          for (let i = seen; i < msgs.length; i++) if (msgs[i].type === 'npc_states') { next = msgs[i]; seen = i + 1; break; }
          if (next) return resolve(next);
          if (Date.now() > guard) return reject(new Error(`no frame after ${frame} frames`));
          clock.release();
          setTimeout(check, 1);
        };
        check();
      });
      const t = m.sim_time_s as number;
      const me = fix(t);
      const cutter = (m.npcs as Array<Record<string, any>>).find((n) => n.actor !== undefined);
      if (cutter) {
        sawActorInFrames = true;
        // the car's own stack: brake (up to 6 m/s²) for a car inside its lane ahead that is slower
        const dx = cutter.x - me.x, dy = cutter.y - me.y;
        const along = dx * Math.cos(me.yaw) + dy * Math.sin(me.yaw), across = -dx * Math.sin(me.yaw) + dy * Math.cos(me.yaw);
        if (brakes && along > 0 && Math.abs(across) < 2.6 && cutter.speed < v) v = Math.max(cutter.speed, v - 6 * 0.05);
      }
      if (!armed && t >= 0.5) {
        await new Promise((r) => setTimeout(r, 5));
        const r = await arm(url);
        expect(r.status).toBe(200);
        const view = await r.json();
        expect(view).toMatchObject({ attempt: 1, state: 'armed', ego: 'car', story_ego: 'sim1', auto_arm: false });
        armed = true;
      }
      if (onFrame && (await onFrame({ t, m, me, url }))) break;
      if (afterEnd >= 0) v = Math.max(0, v - 6 * 0.05);
      if (host.story!.story.state === 'ended' && ++afterEnd >= framesAfterEnd) break;
      // the fix reaches the server before its next tick
      await new Promise((r) => setTimeout(r, 3));
    }
    return { view: host.story!.view(), sawActorInFrames };
  }

  it('a car that brakes for the cutter passes: the cut-in fired on its TTC, no contact, TTC above 1 s; after the end the cutter drives on in every frame until 150 m away; the attempt is recorded and replays with 0 differences', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vils-story-rec-'));
    // after the end: the cutter in each frame (null: not there) and its distance from the car; the record as it was at the end
    const after: Array<{ t: number; cutter: { id: number; x: number; y: number } | null; d: number }> = [];
    let atEnd: string | null = null;
    const { view, sawActorInFrames } = await drive({
      brakes: true, recordDir: dir, framesAfterEnd: 600, frames: 1000,
      onFrame: async ({ t, m, me }) => {
        const v = host().story!.view();
        if (v.state !== 'ended') return false;
        atEnd ??= JSON.stringify({ result: v.result, happenings: v.happenings });
        expect(JSON.stringify({ result: v.result, happenings: v.happenings })).toBe(atEnd);
        const c = (m.npcs as Array<Record<string, any>>).find((n) => n.actor === 'cutter');
        after.push({ t, cutter: c ? { id: c.id, x: c.x, y: c.y } : null, d: c ? Math.hypot(c.x - me.x, c.y - me.y) : NaN });
        // done once it has been gone a while
        return after.length > 5 && after.slice(-5).every((a) => a.cutter === null);
      },
    });
    expect(sawActorInFrames).toBe(true);
    // no frame lost the cutter within 150 m of the car: it was there at the verdict, moved on, and left beyond
    expect(after[0].cutter).not.toBeNull();
    const gone = after.findIndex((a) => a.cutter === null);
    expect(gone).toBeGreaterThan(20);
    for (const a of after.slice(0, gone)) expect(a.cutter!.id).toBe(after[0].cutter!.id);
    expect(Math.hypot(after[gone - 1].cutter!.x - after[0].cutter!.x, after[gone - 1].cutter!.y - after[0].cutter!.y)).toBeGreaterThan(100);
    expect(after[gone - 1].d).toBeGreaterThan(148);
    expect(after.slice(gone).every((a) => a.cutter === null)).toBe(true);
    expect(view.state).toBe('ended');
    // the gate opened when the car crossed the start line at 50 km/h, after it was armed
    expect(view.happenings.find((h) => h.kind === 'start_line')).toMatchObject({ id: 'sim1', detail: 'sim1 crossed the start line at 50.0 km/h, within 50 ± 5 km/h' });
    expect(view.result!.start_s).toBeGreaterThan(view.armed_at_s!);
    expect(view.result!.status).toBe('passed');
    expect(view.result!.events[0]).toMatchObject({ id: 'cut_in' });
    expect(view.result!.events[0].started_s).not.toBeNull();
    expect(view.happenings.some((h) => h.kind === 'event_started' && h.id === 'cut_in')).toBe(true);
    expect(view.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 'passed' })]);
    // a reset after it makes the desk idle and keeps the result
    const idle = await (await fetch(`${serve!.address}/api/story/reset`, { method: 'POST' })).json() as { state: string; result: { status: string } };
    expect(idle).toMatchObject({ state: 'idle', result: { status: 'passed' } });
    await serve!.server.close();
    serve = null;
    const file = join(dir, readdirSync(dir).find((n) => n.endsWith('.mcap'))!);
    const events: Array<Record<string, unknown>> = [];
    for await (const i of readRecording(file)) if (i.type === 'message' && i.message.topic === '/vils/events') events.push(decodeJson(i.message.data));
    const cases = events.filter((e) => e.type === 'test_case');
    expect(cases.map((e) => `${e.attempt} ${e.state} ${e.status}`)).toEqual(['1 armed running', '1 ended passed']);
    expect((cases[1].result as { criteria: unknown[] }).criteria).toHaveLength(2);
    // the actors are inputs of the scene like the car: the replay makes every frame again, the cutter included
    const r = await replayRecording(file, { onNote: () => {} });
    if (r.first) throw new Error(describeDifference(r.first));
    expect(r.differences).toBe(0);
    expect(r.frames).toBeGreaterThan(50);
  }, 120_000);

  it('a car that does not brake fails (collision or TTC); arming again starts attempt 2; a reset aborts it', async () => {
    const { view } = await drive({ brakes: false });
    expect(view.result!.status).toBe('failed');
    expect(view.result!.criteria.some((c) => c.verdict === 'fail' && (c.kind === 'no_collision' || c.kind === 'min_ttc'))).toBe(true);
    const url = serve!.address;
    const again = await (await arm(url, { attempt: 1 })).json() as Record<string, unknown>;
    expect(again).toMatchObject({ attempt: 2, state: 'armed' });
    const reset = await (await fetch(`${url}/api/story/reset`, { method: 'POST' })).json() as { state: string; attempts: Array<{ status: string }> };
    expect(reset.state).toBe('idle');
    expect(reset.attempts.map((a) => a.status)).toEqual(['failed', 'aborted']);
  }, 120_000);

  it('a car standing at the start after arming never opens the gate: CCRs is not started after its start_timeout_s, never failed, no actor placed', async () => {
    const { view, sawActorInFrames } = await drive({ brakes: true, file: join(CASES, 'ccrs.yaml'), v0: 0, frames: 200 });
    expect(sawActorInFrames).toBe(false);
    expect(view.state).toBe('ended');
    expect(view.result).toMatchObject({ status: 'not_started', reason: 'start timeout: the start gate did not open within 10 s' });
    expect(view.result!.end_s! - view.armed_at_s!).toBeCloseTo(10, 6);
    expect(view.result!.criteria.every((c) => c.verdict === 'pending')).toBe(true);
    expect(view.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 'not_started' })]);
  }, 120_000);

  it('a refused arm changes nothing: the attempt under way and its actor go on; a stale attempt number is 409; a malformed body is 400 naming the field', async () => {
    // the cut-in without its start gate (the cutter is placed around the car where it is when armed), the cutter
    // at the car's speed (no cut-in: the attempt stays armed); the car moves into the left lane, where a cutter
    // coming from the left has no lane
    const dir = mkdtempSync(join(tmpdir(), 'vils-story-arm-'));
    const doc = parseYaml(readFileSync(CASE, 'utf8')) as { story: Record<string, any> };
    delete doc.story.start;
    doc.story.actors[0].start.speed_kmh = 50;
    const file = join(dir, 'cut_in_ungated.yaml');
    writeFileSync(file, stringify(doc));
    let cutter: { id: number; x: number; y: number } | null = null;
    let checked = false;
    const moves: number[] = [];
    const { view } = await drive({
      brakes: false, file, runUpM: 0, leftFrom: 1,
      onFrame: async ({ t, m, url }) => {
        const c = (m.npcs as Array<Record<string, any>>).find((n) => n.actor === 'cutter');
        if (cutter && t > 1.6) {
          // the same actor every frame, moving on at its speed: never removed, never placed again
          expect(c?.id).toBe(cutter.id);
          moves.push(Math.hypot(c!.x - cutter.x, c!.y - cutter.y));
        }
        if (c) cutter = { id: c.id, x: c.x, y: c.y };
        if (t < 1.5 || checked) return t > 3;
        checked = true;
        const before = host().story!.view();
        expect(before).toMatchObject({ attempt: 1, state: 'armed' });
        // refused where the car is now (the left lane): nothing is ended, nothing removed
        const refused = await arm(url, { attempt: 1 });
        expect(refused.status).toBe(400);
        expect(((await refused.json()) as { message: string }).message).toMatch(/^attempt refused: story\.actors\[0\]\.start: there is no lane to the left of lane L\d ahead of sim1$/);
        // a second click on Arm: the number it sends is no longer the current one
        const stale = await arm(url, { attempt: 0 });
        expect(stale.status).toBe(409);
        expect(await stale.json()).toMatchObject({ statusCode: 409, error: 'Conflict', message: 'attempt 1 is already armed (the request named attempt 0): GET /api/story, then arm with {"attempt": 1} to replace it' });
        for (const [body, message] of [
          [NO_BODY, /^the body must be a JSON object: send \{"attempt": 1\}/],
          [{}, /^body\.attempt is missing: send \{"attempt": 1\}/],
          [{ attempt: 1, force: true }, /^body\.force is not a field of the arm \(its one field is attempt\)/],
          [{ attempt: '1' }, /^body\.attempt must be integer/],
        ] as const) {
          const r = await arm(url, body);
          expect(r.status, String(JSON.stringify(body))).toBe(400);
          expect(((await r.json()) as { message: string }).message).toMatch(message);
        }
        const after = host().story!.view();
        expect(after).toMatchObject({ attempt: 1, state: 'armed', armed_at_s: before.armed_at_s, attempts: before.attempts });
        expect(after.happenings).toEqual(before.happenings);
        return false;
      },
    });
    expect(checked).toBe(true);
    expect(view).toMatchObject({ attempt: 1, state: 'armed' });
    expect(moves.length).toBeGreaterThan(5);
    for (const d of moves) expect(d).toBeCloseTo((50 / 3.6) * 0.1, 1);
  }, 120_000);

  it('refuses to arm while the car is not connected, and answers 404 on a scene with no test case', async () => {
    const clock = new SteppedClock();
    serve = await startServe(['--scenario', CASE, '--story-ego', 'car', '--port', '0', '--host', '127.0.0.1', '--no-record', '--model', testModel(), '--log-level', 'silent'], { clock, epochNow: () => 1.8e9 + clock.now() });
    const r = await arm(serve.address);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toMatch(/ego car, is not in the scene: connect it/);
    // the OpenAPI document says what to send and what a stale number gets
    const docs = (await (await fetch(`${serve.address}/docs/json`)).json()) as { paths: Record<string, Record<string, any>> };
    const op = docs.paths['/api/story/arm'].post;
    expect(op.requestBody.content['application/json'].schema).toMatchObject({ type: 'object', required: ['attempt'], additionalProperties: false, properties: { attempt: { type: 'integer', minimum: 0 } } });
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409']));
  }, 60_000);
});
