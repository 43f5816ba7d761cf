/**
 * A verdict you can sign (issue 40 item 6): a car of the test's own — its own kinematics (its truth), its own
 * simple AEB reading the frames, real WebSocket, arming over REST — drives the shipped cases live through
 * `vils serve --scenario <case> --story-ego car` on a clock the test steps one frame at a time. Its fixes reach
 * the server 0, 100 or 300 ms after they were taken (stamped with that moment, the car's clock off or not); the
 * server's verdict must be the verdict on the car's truth — brake passes, blind fails, a car that brakes too late
 * fails — at every latency, and the server's figures must match the ones the test computes from the truth with
 * the story's own geometry. A car that goes silent or disconnects mid-attempt makes it invalid, never passed;
 * a server that freezes is caught up (actors where real time puts them) or the attempt is invalid; late and lost
 * fixes do not fail a 6 m/s² stop. And the negative control: placed at arrival (no timestamps), the same late car
 * is judged by where it was 300 ms before — the finding this fixes.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/cli/serve.js';
import { along, boxGap, overlaps, ttcOf, type Along } from '../../src/scenario/story/geometry.js';
import type { StoryVehicle } from '../../src/scenario/story/world.js';
import { LIVE_T0 as T0, serveCase } from '../helpers/live-case.js';
import type { TestClient } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const CASES = join(PROJECT_ROOT, 'configs', 'cases');
const V0 = 50 / 3.6;
const DT = 0.1;
/** the car starts this far before the end of R5 (the cases' start line is 3.5 m into R6) */
const RUN_UP_M = 20;
const CAR = { length: 4.5, width: 2.0 };

/** What the car's own stack sees in a frame: itself (its truth) and the actors. */
interface Seen {
  t: number;
  me: { x: number; y: number; yaw: number; v: number };
  actors: Array<Record<string, any>>;
}

interface Run {
  file: string;
  /** the car's commanded acceleration for the next frame [m/s²] */
  stack: (s: Seen) => number;
  latencyS?: number;
  /** false: fixes without a timestamp (placed at their arrival: the way before) */
  stamped?: boolean;
  /** the car's clock minus the server's [s] (the car answers clock probes) */
  clockOffsetS?: number;
  lost?: (k: number) => boolean;
  /** every n-th fix reaches the server one frame late (with the next one) */
  lateEvery?: number;
  /** no fixes sent for this span of simulation time after the attempt started [s] */
  dropout?: [number, number];
  /** the car's connection closes this long after the attempt started [s] */
  disconnectAfterS?: number;
  /** the server freezes `s` seconds once, `afterS` after the attempt started */
  stall?: { afterS: number; s: number };
  maxFrames?: number;
}

interface Sample {
  t: number;
  me: StoryVehicle;
  actors: StoryVehicle[];
  /** where the scene put the car in this frame */
  scene: { x: number; y: number } | null;
  /** an actor of this frame is flagged as touching the car */
  flagged: boolean;
}

const vehicle = (id: string, x: number, y: number, yaw: number, speed: number, length: number, width: number): StoryVehicle => ({ id, x, y, yaw, speed, accel: 0, length, width });

describe('a verdict you can sign: the real car where it really is, judged on data that holds', () => {
  let serve: ServeHandle | null = null;
  let client: TestClient | null = null;
  afterEach(async () => {
    client?.ws.close();
    await serve?.server.close();
    serve = null;
    client = null;
  });

  async function drive(run: Run) {
    const live = await serveCase(join(CASES, run.file));
    ({ serve, client } = live);
    const { clock, url } = live;
    const host = live.serve.server.host;
    const lanes = host.scene.lanes;
    const r5 = lanes.laneById('R5');
    const s0 = lanes.lanes[r5].length - RUN_UP_M;
    const latency = run.latencyS ?? 0, offset = run.clockOffsetS ?? 0;
    // the car's truth: at each frame time, distance along its lanes, speed, and the acceleration it then commands
    const hist: Array<{ t: number; s: number; v: number; a: number }> = [];
    const truthAt = (t: number) => {
      let h = hist[0];
      for (const x of hist) if (x.t <= t + 1e-9) h = x;
      let dt = Math.max(0, t - h.t);
      if (h.a < 0 && h.v + h.a * dt < 0) dt = -h.v / h.a;
      return { s: h.s + h.v * dt + 0.5 * h.a * dt * dt, v: Math.max(0, h.v + h.a * dt) };
    };
    const poseAt = (s: number) => lanes.ahead(r5, s0, s);
    let armed = false, startedAt = NaN, held: string | null = null, k = 0, seen = 0, ended = -1;
    const samples: Sample[] = [];
    for (let frame = 0; frame < (run.maxFrames ?? 500); frame++) {
      const m = await new Promise<Record<string, any>>((resolve, reject) => {
        const guard = Date.now() + 30_000;
        let stallNow = run.stall && startedAt === startedAt && hist.length > 0 && hist[hist.length - 1].t >= startedAt + run.stall.afterS ? run.stall.s : 0;
        const check = () => {
          const msgs = client!.messages;
          let answered = false;
          for (let i = seen; i < msgs.length; i++) {
            const msg = msgs[i];
            // the car answers the server's clock probes at once, on its own clock (the answer reaches the server
            // before its clock moves on, as the fixes do: the same latency both ways)
            if (msg.type === 'clock_probe') {
              client!.send({ type: 'clock_reply', server_time: msg.server_time, received: msg.server_time + offset });
              answered = true;
            }
            if (msg.type === 'npc_states') {
              seen = i + 1;
              return resolve(msg);
            }
          }
          seen = msgs.length;
          if (Date.now() > guard) return reject(new Error(`no frame after ${frame} frames`));
          if (answered) return setTimeout(check, 3);
          if (clock.release(stallNow)) {
            if (stallNow) run.stall = undefined;
            stallNow = 0;
          }
          setTimeout(check, 1);
        };
        check();
      });
      const t = m.sim_time_s as number;
      // the truth up to this frame
      if (hist.length === 0) hist.push({ t, s: 0, v: V0, a: 0 });
      else {
        const now = truthAt(t);
        hist.push({ t, s: now.s, v: now.v, a: hist[hist.length - 1].a });
      }
      const cur = hist[hist.length - 1];
      const me = poseAt(cur.s);
      // the fix taken `latency` ago reaches the server now (a late one with the next)
      const since = t - startedAt;
      const inDropout = run.dropout && since >= run.dropout[0] && since < run.dropout[1];
      const taken = t - latency;
      if (taken >= 0 && !inDropout && !(run.disconnectAfterS !== undefined && since >= run.disconnectAfterS)) {
        const tr = truthAt(taken), p = poseAt(tr.s), ll = host.geo.toLatLon(p.x, p.y);
        // stamped on the car's clock: the server's wall clock at the moment it was taken (the frame's timestamp is the
        // wall-clock time of its simulation time) plus the car's clock offset
        const stamp = (m.timestamp as number) - latency + offset;
        const msg = JSON.stringify({ type: 'ego_state', ego_id: 'car', ...(run.stamped === false ? {} : { timestamp: stamp }), data: { lat: ll.lat, lon: ll.lon, heading: host.geo.yawToHeading(p.yaw, p.x, p.y), speed: tr.v } });
        if (held) client.ws.send(held);
        held = null;
        const n = k++;
        if (run.lost?.(n)) {
          // never sent
        } else if (run.lateEvery && n % run.lateEvery === run.lateEvery - 1) held = msg;
        else client.ws.send(msg);
      }
      if (run.disconnectAfterS !== undefined && since >= run.disconnectAfterS && client.ws.readyState === client.ws.OPEN) {
        client.ws.close();
        await client.closed();
        // the operator's view goes on over REST; frames no longer come to this connection: step the clock blind
        for (let i = 0; i < 30; i++) {
          clock.release();
          await new Promise((r) => setTimeout(r, 2));
        }
        break;
      }
      // what the car's stack sees, and what it commands from here on
      const actors = (m.npcs as Array<Record<string, any>>).filter((n) => n.actor !== undefined);
      cur.a = run.stack({ t, me: { x: me.x, y: me.y, yaw: me.yaw, v: cur.v }, actors });
      const sceneCar = (m.egos as Array<Record<string, any>>).find((e) => e.ego_id === 'car');
      samples.push({
        t, me: vehicle('car', me.x, me.y, me.yaw, cur.v, CAR.length, CAR.width),
        actors: actors.map((a) => vehicle(a.actor, a.x, a.y, a.yaw, a.speed, a.length, a.width)),
        scene: sceneCar ? { x: sceneCar.x, y: sceneCar.y } : null,
        flagged: actors.some((a) => a.collided === true),
      });
      if (!armed && t >= 0.5) {
        await new Promise((r) => setTimeout(r, 5));
        const r = await fetch(`${url}/api/story/arm`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ attempt: 0 }) });
        expect(r.status).toBe(200);
        armed = true;
      }
      const view = host.story!.view();
      if (startedAt !== startedAt && view.happenings.some((h) => h.id === 'start' && h.kind === 'event_started')) startedAt = view.happenings.find((h) => h.id === 'start')!.t;
      if (view.state === 'ended' && ++ended >= 3) break;
      await new Promise((r) => setTimeout(r, 3));
    }
    const view = host.story!.view();
    return { view, samples, startedAt };
  }

  // ---- the car's own stacks -------------------------------------------------------------------------------

  const m: Along = { lon: 0, lat: 0, gap: 0, closing: 0, va: 0, inPath: false };
  /**
   * An AEB: full braking (decel) from the moment a car in its path ahead is closer than ttcS, held until the car
   * is no faster than that one, then its speed (a real AEB does not chatter on and off at every frame).
   */
  const aeb = (ttcS: number, decel = 6) => {
    let braking = false;
    const stack = (s: Seen) => {
      const me = vehicle('car', s.me.x, s.me.y, s.me.yaw, s.me.v, CAR.length, CAR.width);
      for (const a of s.actors) {
        along(me, vehicle('a', a.x, a.y, a.yaw, a.speed, a.length, a.width), s.me.yaw, m);
        if (!(m.inPath && m.lon > 0)) continue;
        const ahead = a.speed * Math.cos(a.yaw - s.me.yaw);
        if (ttcOf(m) < ttcS) braking = true;
        if (braking && s.me.v > ahead) return -Math.min(decel, (s.me.v - ahead) / DT);
        if (braking) return 0;
      }
      return 0;
    };
    return stack;
  };
  const blind = () => 0;
  /** brakes at exactly 6 m/s² as soon as the car ahead slows down (CCRb), to a standstill */
  let braking = false;
  const follower = (s: Seen) => {
    const lead = s.actors[0];
    if (lead && lead.speed < V0 - 0.3) braking = true;
    return braking && s.me.v > 0 ? -6 : 0;
  };
  /** stops for a car crossing ahead of it once that car sets off */
  const yielder = (s: Seen) => (s.actors.some((a) => a.speed > 0.5) && s.me.v > 0 ? -6 : 0);

  /** The verdict's figures on the car's truth (the story's own geometry, the actors as the frames put them). */
  function truthFigures(samples: Sample[], from: number, to: number) {
    let minTtc = Infinity, minGap = Infinity, contact = false;
    for (const x of samples) {
      if (x.t < from - 1e-9 || x.t > to + 1e-9) continue;
      for (const a of x.actors) {
        along(x.me, a, x.me.yaw, m);
        if (m.inPath) minTtc = Math.min(minTtc, ttcOf(m));
        minGap = Math.min(minGap, boxGap(x.me, a));
        if (overlaps(x.me, a)) contact = true;
      }
    }
    return { minTtc, minGap, contact };
  }
  /** how far the scene put the car from its truth in each frame of the attempt [m], sorted */
  const placementErrors = (samples: Sample[], from: number) => samples.filter((x) => x.t >= from && x.scene).map((x) => Math.hypot(x.scene!.x - x.me.x, x.scene!.y - x.me.y)).sort((a, b) => a - b);
  const placementError = (samples: Sample[], from: number) => Math.max(...placementErrors(samples, from));

  const criterion = (view: Awaited<ReturnType<typeof drive>>['view'], kind: string) => view.result!.criteria.find((c) => c.kind === kind)!;

  for (const latencyS of [0, 0.1, 0.3]) {
    it(`cut-in at ${latencyS * 1000} ms: a braking car passes, a blind one fails, a late braker fails — as on its truth, with the server's min TTC the truth's`, async () => {
      for (const [stack, want] of [[aeb(2.0), 'passed'], [blind, 'failed'], [aeb(0.9), 'failed']] as const) {
        const { view, samples } = await drive({ file: 'cut_in.yaml', stack, latencyS, clockOffsetS: latencyS === 0.3 ? 2 : 0 });
        const r = view.result!;
        const truth = truthFigures(samples, r.start_s, r.end_s!);
        const truthVerdict = truth.contact || truth.minTtc < 1 ? 'failed' : 'passed';
        expect(truthVerdict).toBe(want);
        expect(r.status, r.reason).toBe(want);
        const ttc = criterion(view, 'min_ttc');
        if (!truth.contact) expect(Math.abs((ttc.value as number) - truth.minTtc)).toBeLessThan(0.02);
        expect(r.quality!.every((g) => g.ok)).toBe(true);
        // a contact is in a frame: the actor touched is flagged there, and still in the scene after the verdict
        if (truth.contact) {
          expect(criterion(view, 'no_collision')).toMatchObject({ verdict: 'fail', value: 'cutter' });
          expect(samples.some((x) => x.flagged)).toBe(true);
        } else expect(samples.some((x) => x.flagged)).toBe(false);
        const errs = placementErrors(samples, r.start_s);
        console.log(`[verdict] cut-in, ${latencyS * 1000} ms${latencyS === 0.3 ? ', clock 2 s off' : ''}, ${want}: ${r.status}; min TTC ${(ttc.value as number).toFixed(3)} s (truth ${truth.minTtc.toFixed(3)} s); the scene's car against its truth p95 ${errs[Math.ceil(0.95 * errs.length) - 1].toFixed(3)} m, max ${errs[errs.length - 1].toFixed(3)} m over ${errs.length} frames`);
        // where the scene had the car against its truth: off only while a braking the fixes do not show yet goes on
        // (6 m/s² over the latency and a frame), never by the latency's distance (0.3 s × 50 km/h = 4.2 m)
        expect(placementError(samples, r.start_s)).toBeLessThan(0.5 * 6 * (latencyS + DT) ** 2 + 0.1);
        await serve!.server.close();
        serve = null;
      }
    }, 300_000);
  }

  it('the negative control: placed at arrival (no timestamps), the late braker at 300 ms is judged by where it was 300 ms before', async () => {
    const { view, samples } = await drive({ file: 'cut_in.yaml', stack: aeb(0.9), latencyS: 0.3, stamped: false });
    const r = view.result!;
    const truth = truthFigures(samples, r.start_s, r.end_s!);
    // the scene's car trails the real one by about 0.3 s × 50 km/h
    expect(placementError(samples, r.start_s)).toBeGreaterThan(3);
    expect((criterion(view, 'min_ttc').value as number) - truth.minTtc).toBeGreaterThan(0.1);
  }, 120_000);

  for (const latencyS of [0, 0.3]) {
    it(`CCRb 6 m/s² at ${latencyS * 1000} ms with every 5th fix late and 5 % lost: the follower braking at exactly 6.0 m/s² passes, its peak deceleration read 6.0 ± 0.5`, async () => {
      braking = false;
      let lost = 7;
      const { view } = await drive({ file: 'ccrb_6mps2_12m.yaml', stack: follower, latencyS, lateEvery: 5, lost: () => ((lost = (lost * 1103515245 + 12345) % 2147483648) / 2147483648) < 0.05 });
      const r = view.result!;
      expect(r.status, r.reason).toBe('passed');
      expect(Math.abs((criterion(view, 'peak_decel').value as number) - 6)).toBeLessThanOrEqual(0.5);
      expect(r.quality!.every((g) => g.ok)).toBe(true);
    }, 120_000);
  }

  it('crossing at 0 and 300 ms: a car that stops for the crosser passes, a blind one fails', async () => {
    for (const latencyS of [0, 0.3]) {
      for (const [stack, want] of [[yielder, 'passed'], [blind, 'failed']] as const) {
        const { view, samples } = await drive({ file: 'crossing.yaml', stack, latencyS });
        const r = view.result!;
        const truth = truthFigures(samples, r.start_s, r.end_s!);
        expect(truth.contact || truth.minGap < 0.5 ? 'failed' : 'passed').toBe(want);
        expect(r.status, r.reason).toBe(want);
        await serve!.server.close();
        serve = null;
      }
    }
  }, 300_000);

  it('a 5 s GNSS dropout during the cut-in: invalid (fix gap and stale, with when), never passed', async () => {
    const { view } = await drive({ file: 'cut_in.yaml', stack: blind, dropout: [1, 6] });
    const r = view.result!;
    expect(r.status).toBe('invalid');
    expect(r.reason).toMatch(/^data did not hold: (stale|fix_gap) /);
    const gap = r.quality!.find((g) => g.gate === 'fix_gap')!;
    expect(gap).toMatchObject({ ok: false, limit: 0.3 });
    expect(gap.value!).toBeGreaterThan(4.5);
    expect(r.quality!.find((g) => g.gate === 'stale')!.ok).toBe(false);
    expect(['passed', 'failed']).toContain(r.criteria_said);
  }, 120_000);

  it('a car that disconnects mid-attempt: the attempt ends there, invalid', async () => {
    const { view } = await drive({ file: 'cut_in.yaml', stack: aeb(2.0), disconnectAfterS: 1.5 });
    const r = view.result!;
    expect(view.state).toBe('ended');
    expect(r.status).toBe('invalid');
    expect(r.quality!.find((g) => g.gate === 'disconnected')).toMatchObject({ ok: false });
    expect(r.ended_by).toMatch(/connection closed/);
  }, 120_000);

  it('a server that freezes 0.6 s mid-attempt: the scene catches up (the cutter where real time puts it) and the attempt is invalid (the car saw no frame for 0.7 s)', async () => {
    const { view } = await drive({ file: 'cut_in.yaml', stack: aeb(2.0), stall: { afterS: 1, s: 0.6 } });
    const r = view.result!;
    expect(r.status).toBe('invalid');
    expect(r.quality!.find((g) => g.gate === 'server_stall')).toMatchObject({ ok: false, limit: 0.3 });
    // caught up, not slipped: simulation time stayed on the wall clock
    expect(r.quality!.find((g) => g.gate === 'behind_plan')!.ok).toBe(true);
    expect(serve!.server.host.runner.stats).toMatchObject({ slips: 0, catchUps: 1 });
  }, 120_000);
});
