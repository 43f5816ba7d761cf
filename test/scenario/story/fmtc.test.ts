/**
 * A test case on FMTC (converted from ../shared; never committed): a merge at one of its priority junctions,
 * found from the junction geometry — a car on one approach and a scripted actor on another, both bound for the
 * same exit and timed to reach the merge together. The car is a "real" one the test moves (reported to the scene
 * as an ego, as the server does with a car's fixes): when it yields to the actor it passes, when it drives on it
 * fails by collision. The story runs on the live scene through StoryHost, as it does under `vils serve`.
 */
import { describe, expect, it } from 'vitest';
import { ConflictKind, type Movement } from '../../../src/map/junctions.js';
import { convertNgii } from '../../../src/map/ngii/convert.js';
import { parseMapJson } from '../../../src/map/scene-json.js';
import { PolicySession } from '../../../src/policy/session.js';
import { directSink, parseStory, StoryHost } from '../../../src/scenario/index.js';
import { LiveScene } from '../../../src/scene/index.js';
import { POLICY_DT } from '../../../src/traffic/engine.js';
import { have } from '../../helpers/prerequisites.js';
import { testModel } from '../../helpers/server-fixture.js';
import { sharedPath } from '../../helpers/shared.js';

const RUN = have('shared');
const LEAD_M = 40;
const V = 8;

describe.skipIf(!RUN)('a test case on FMTC: a merge at a priority junction', () => {
  it('a car that yields to the merging actor passes, one that drives on fails; the same run twice gives the same result', async () => {
    const map = parseMapJson(JSON.parse(JSON.stringify((await convertNgii(sharedPath('data', 'ngii', 'fmtc'))).map)), 'fmtc');
    const policy = await PolicySession.load(testModel());
    try {
      const probe = new LiveScene(map, policy.fork(), { npc_target: 0, seed: 1 });
      const lanes = probe.lanes;
      // two movements of different approaches that merge, each with LEAD_M of lane before its entry
      let pick: { a: Movement; b: Movement; mergeA: number; leadB: number } | null = null;
      for (const cj of probe.control.layout.junctions) {
        if (cj.control !== 'priority') continue;
        const J = cj.junction, n = J.movements.length;
        for (let a = 0; a < n && !pick; a++) {
          for (let b = 0; b < n && !pick; b++) {
            const A = cj.movements[a], B = cj.movements[b];
            if (J.conflicts[a * n + b] !== ConflictKind.Merge || A.approach === B.approach) continue;
            const mergeA = LEAD_M + J.zoneStart[a * n + b];
            const leadB = mergeA - J.zoneStart[b * n + a];
            if (A.entry.s >= LEAD_M && leadB >= 10 && B.entry.s >= leadB && A.pieces.length === 1 && B.pieces.length === 1) pick = { a: A, b: B, mergeA, leadB };
          }
        }
      }
      expect(pick, 'a merge between two approaches on FMTC').not.toBeNull();
      const { a: A, b: B, mergeA, leadB } = pick!;
      const id = (lane: number) => lanes.lanes[lane].id;
      const spec = parseStory({
        actors: [{ id: 'merger', start: { lane: id(B.entry.lane), s_m: B.entry.s - leadB, speed_kmh: V * 3.6 } }],
        events: [{ id: 'merge', actions: [{ actor: 'merger', follow_route: [B.entry.lane, ...B.pieces.map((p) => p.lane)].filter((l, i, all) => i === 0 || all[i - 1] !== l).map(id) }] }],
        criteria: [{ no_collision: 'car' }, { min_distance: { ego: 'car', to: 'merger', m: 0.5 } }],
        end: { any: [{ after_s: 14 }, { collision: 'car' }] },
      }, 'fmtc-merge');
      // the car's way: its entry lane from LEAD_M before the entry, then the movement
      const last = A.pieces[A.pieces.length - 1];
      const after = lanes.lanes[last.lane].next[0];
      const way = [{ lane: A.entry.lane, s0: A.entry.s - LEAD_M, s1: A.entry.s }, ...A.pieces, ...(after !== undefined ? [{ lane: after, s0: 0, s1: Math.min(40, lanes.lanes[after].length) }] : [])];
      const poseAt = (d: number) => {
        for (const p of way) {
          if (d <= p.s1 - p.s0 || p === way[way.length - 1]) return lanes.pose(p.lane, p.s0 + Math.min(d, p.s1 - p.s0));
          d -= p.s1 - p.s0;
        }
        throw new Error('unreachable');
      };
      const attempt = async (yields: boolean) => {
        const scene = new LiveScene(map, policy.fork(), { npc_target: 0, seed: 1 });
        scene.reset();
        const story = new StoryHost(spec, directSink(scene), []);
        let d = 0, v = V;
        const report = (t: number) => {
          const p = poseAt(d);
          scene.updateEgo({ egoId: 'car', x: p.x, y: p.y, yaw: p.yaw, speed: v, length: 4.6, width: 1.9 }, t);
        };
        report(0);
        story.arm(0, scene.snapshot(0));
        const mergePoint = poseAt(mergeA);
        for (let k = 0; k < 150 && !story.ended; k++) {
          const t = k * POLICY_DT;
          if (k > 0) {
            // a driver who yields: stands 2 m before its entry until the merging car has passed the merge point
            const m = scene.snapshot(t).npcs.find((n) => n.actor === 'merger');
            const passed = m !== undefined && (m.x - mergePoint.x) * Math.cos(m.yaw) + (m.y - mergePoint.y) * Math.sin(m.yaw) > m.length + 2;
            const toLine = LEAD_M - 2 - d;
            if (yields && !passed && toLine < (v * v) / (2 * 4) + 1) v = Math.max(0, v - 4 * POLICY_DT);
            else if (v < V) v = Math.min(V, v + 2 * POLICY_DT);
            d += v * POLICY_DT;
          }
          report(t);
          story.beforeBoundary(t);
          await scene.advanceTo(t);
          story.afterBoundary(t, scene.snapshot(t));
        }
        story.finish(14);
        return story.result();
      };
      const yielding = await attempt(true);
      expect(yielding.status, JSON.stringify(yielding.criteria)).toBe('passed');
      const blind = await attempt(false);
      expect(blind.status).toBe('failed');
      expect(blind.criteria.find((c) => c.kind === 'no_collision')!.verdict).toBe('fail');
      expect(await attempt(true)).toEqual(yielding);
    } finally {
      await policy.release();
    }
  }, 180_000);
});
