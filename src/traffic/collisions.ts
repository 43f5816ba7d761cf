/**
 * Collision pass (spec §7.9–7.13): vehicle–vehicle, vehicle–road edge and vehicle–stop sign, with
 * 0.7-scaled agent boxes and touching counted. Flags describe only this pass ("ignore" behaviour:
 * nothing else happens to a colliding agent). Agents whose log is invalid at this step (non-controlled)
 * and agents already out of the world take no part.
 */
import { RadiusMemo, type RoadIndex } from '../map/spatial-index.js';
import { obbOverlap, obbOverlapCS } from './obb.js';
import { AgentKind, type World } from './world.js';
import { XOrder } from './x-order.js';

/** slack on the distance test that leaves out road entities an agent cannot touch [m] */
const EDGE_SLACK_M = 0.5;

export class CollisionDetector {
  /** the agents of the pass by x, and per slot its rank in the pass */
  private readonly byX: XOrder;
  private readonly rank: Int32Array;
  private readonly near: Int32Array;
  /** per agent slot: the road edges and stop signs near where it was (no tree walk each step) */
  private readonly nearEdges: RadiusMemo;
  private readonly active: Int32Array;
  /** road entities box-tested so far (the work the corner pre-test saves; see reference) */
  boxTests = 0;

  /**
   * reference: test every pair of agents (instead of those near each other in x) and box-test every road entity
   * the spatial index gives instead of first leaving out those whose
   * corner circle is too far to touch: the same flags with more work (the exactness test compares the two).
   */
  constructor(capacity: number, private readonly reference = false) {
    this.nearEdges = new RadiusMemo(capacity, 5, true);
    this.active = new Int32Array(capacity);
    this.byX = new XOrder(capacity);
    this.rank = new Int32Array(capacity);
    this.near = new Int32Array(capacity);
  }

  /** The pair test of agents i and j (i before j in the pass): both flagged when their boxes overlap. */
  private pair(world: World, i: number, j: number): void {
    if (world.kind[i] === AgentKind.External && world.kind[j] === AgentKind.External) return;
    const hli = 0.5 * world.length[i] * world.collisionScale[i];
    const hwi = 0.5 * world.width[i] * world.collisionScale[i];
    const ri = Math.sqrt(hli * hli + hwi * hwi);
    const hlj = 0.5 * world.length[j] * world.collisionScale[j];
    const hwj = 0.5 * world.width[j] * world.collisionScale[j];
    const dx = world.x[j] - world.x[i];
    const dy = world.y[j] - world.y[i];
    const reach = ri + Math.sqrt(hlj * hlj + hwj * hwj);
    if (dx * dx + dy * dy > reach * reach) return;
    if (obbOverlap(world.x[i], world.y[i], world.yaw[i], hli, hwi, world.x[j], world.y[j], world.yaw[j], hlj, hwj)) {
      world.hitVehicle[i] = 1;
      world.hitVehicle[j] = 1;
      world.collided[i] = 1;
      world.collided[j] = 1;
    }
  }

  /**
   * The pairs whose centres are within the largest reach of each other in x, found by x (a pair further apart in
   * x fails the pair test's distance gate), each tested once as the pass would; false (nothing tested) when some
   * agent's position or size is not finite.
   */
  private pairsByX(world: World, n: number): boolean {
    let most = 0;
    this.byX.clear();
    for (let a = 0; a < n; a++) {
      const i = this.active[a];
      const hl = 0.5 * world.length[i] * world.collisionScale[i], hw = 0.5 * world.width[i] * world.collisionScale[i];
      const r = Math.sqrt(hl * hl + hw * hw);
      if (!(Number.isFinite(world.x[i]) && Number.isFinite(world.y[i]) && Number.isFinite(r))) return false;
      if (r > most) most = r;
      this.rank[i] = a;
      this.byX.add(i, world.x[i]);
    }
    this.byX.sort();
    const span = 2 * most * (1 + 1e-9) + 1e-6;
    for (let a = 0; a < n; a++) {
      const i = this.active[a];
      const m = this.byX.inRange(world.x[i] - span, world.x[i] + span, this.near);
      for (let q = 0; q < m; q++) {
        const j = this.near[q];
        if (this.rank[j] > a) this.pair(world, i, j);
      }
    }
    return true;
  }

  /** Is agent i part of this pass? `logIndex` is the log step experts were placed at. */
  static takesPart(world: World, i: number, logIndex: number): boolean {
    if (!world.present[i]) return false;
    const k = world.kind[i];
    if (k === AgentKind.Controlled || k === AgentKind.External) return true;
    if (!world.hasLog[i]) return true;
    const li = Math.min(Math.max(logIndex, 0), world.logSteps - 1);
    return world.logValid[i * world.logSteps + li] === 1;
  }

  /** Clears and recomputes collided / hitVehicle / hitRoad for every agent. */
  detect(world: World, roads: RoadIndex | null, logIndex: number): void {
    let n = 0;
    for (let i = 0; i < world.count; i++) {
      world.collided[i] = 0;
      world.hitVehicle[i] = 0;
      world.hitRoad[i] = 0;
      if (CollisionDetector.takesPart(world, i, logIndex)) this.active[n++] = i;
    }
    // vehicle pairs (the flags are the same whatever order the pairs are tested in)
    if (this.reference || !this.pairsByX(world, n)) {
      for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) this.pair(world, this.active[a], this.active[b]);
    }
    for (let a = 0; a < n; a++) {
      const i = this.active[a];
      const hli = 0.5 * world.length[i] * world.collisionScale[i];
      const hwi = 0.5 * world.width[i] * world.collisionScale[i];
      const ri = Math.sqrt(hli * hli + hwi * hwi);
      if (roads && world.kind[i] !== AgentKind.External) {
        const e = roads.entities;
        const xi = world.x[i], yi = world.y[i];
        // every entity that can touch the agent (centre within ri + collidableReach), and some further out
        // that the reach test below leaves out: a flag is the same whatever else is in the list
        const m = this.nearEdges.around(roads, i, xi, yi, ri + roads.collidableReach);
        const candidates = this.nearEdges.list(i);
        // its heading's cosines when first needed (2: not yet; a NaN start would box them in optimised code)
        let ci = 2, si = 2;
        for (let k = 0; k < m; k++) {
          const id = candidates[k];
          // boxes whose corner circles are more than EDGE_SLACK_M apart cannot overlap (obbOverlap's separating
          // axis then has a gap of at least EDGE_SLACK_M/√2, far above rounding): the same answer, no trig
          const dx = e.x[id] - xi, dy = e.y[id] - yi;
          const reach = ri + roads.cornerReach[id] + EDGE_SLACK_M;
          if (dx * dx + dy * dy > reach * reach && !this.reference) continue;
          this.boxTests++;
          if (ci === 2) { ci = Math.cos(world.yaw[i]); si = Math.sin(world.yaw[i]); }
          if (obbOverlapCS(xi, yi, ci, si, hli, hwi, e.x[id], e.y[id], roads.headingCos[id], roads.headingSin[id], e.halfLength[id], e.halfWidth[id])) {
            world.hitRoad[i] = 1;
            world.collided[i] = 1;
            break;
          }
        }
      }
    }
  }
}
