/**
 * Where every vehicle is, this step, in terms of the junction movements: the one it approaches (and the one after
 * that), the one it is in, its lane, and per movement who is in it or coming to it. Found once at the start of a
 * step so that the checks of every NPC against every other (giving way, room past the exit, the detectors) only
 * look it up; the lists are kept and cleared, never reallocated.
 */
import type { TrafficEngine } from '../../traffic/engine.js';
import type { LaneNetwork, LanePosition } from '../../traffic/lanes.js';
import { MAX_PLAN } from '../../traffic/predict.js';
import { AgentKind, type World } from '../../traffic/world.js';
import type { MovementIndex } from '../junction-kit/movement-index.js';
import { LOOKAHEAD_M, OCCUPY_M } from './rule-params.js';

export class VehiclePlaces {
  /** per slot: the movement it approaches (−1) and its centre's distance to the entry along its lanes */
  readonly apMg: Int32Array;
  readonly apD: Float64Array;
  /** per slot: the movement after that (−1) and its entry's distance */
  readonly ap2Mg: Int32Array;
  readonly ap2D: Float64Array;
  /** per slot: the movement it is in (−1) and its centre's distance past that movement's entry */
  readonly inMg: Int32Array;
  readonly inA: Float64Array;
  /** per slot: a second movement its body is in (−1), where two junctions lie closer than a car's length — its
   * front in the next one's movement while its centre is still in the last — and its centre's distance past
   * that movement's entry (negative) */
  readonly frontMg: Int32Array;
  readonly frontA: Float64Array;
  /** per slot: its lane and distance along it (−1: off the lanes) */
  readonly laneOf: Int32Array;
  readonly sOf: Float64Array;
  /** per slot: the movement it was in (else approached) in the last step */
  private readonly lastMg: Int32Array;
  /** per movement: the vehicles in it and those approaching it (and the movements that have any, to clear them) */
  readonly occupants: number[][];
  readonly approachers: number[][];
  private readonly touched: number[] = [];
  /** per lane: the vehicles on it this step (and the lanes that have any, to clear them) */
  readonly laneVehicles: number[][];
  private readonly laneTouched: number[] = [];
  private readonly seq: Int32Array = new Int32Array(MAX_PLAN + 16);
  private readonly pos: LanePosition = { lane: 0, s: 0, offset: 0 };

  constructor(private readonly index: MovementIndex, private readonly lanes: LaneNetwork, private readonly engine: TrafficEngine) {
    const total = index.refs.length;
    this.occupants = Array.from({ length: total }, () => []);
    this.approachers = Array.from({ length: total }, () => []);
    this.laneVehicles = Array.from({ length: lanes.lanes.length }, () => []);
    const cap = engine.world.capacity;
    this.apMg = new Int32Array(cap).fill(-1);
    this.apD = new Float64Array(cap);
    this.ap2Mg = new Int32Array(cap).fill(-1);
    this.ap2D = new Float64Array(cap);
    this.inMg = new Int32Array(cap).fill(-1);
    this.inA = new Float64Array(cap);
    this.frontMg = new Int32Array(cap).fill(-1);
    this.frontA = new Float64Array(cap);
    this.laneOf = new Int32Array(cap).fill(-1);
    this.sOf = new Float64Array(cap);
    this.lastMg = new Int32Array(cap).fill(-1);
  }

  /** Empties the last step's lists. */
  clear(): void {
    for (const mg of this.touched) {
      this.occupants[mg].length = 0;
      this.approachers[mg].length = 0;
    }
    this.touched.length = 0;
    for (const l of this.laneTouched) this.laneVehicles[l].length = 0;
    this.laneTouched.length = 0;
  }

  /** Does slot s approach movement mg (next or after next) or drive it now? */
  involves(s: number, mg: number): boolean {
    return this.apMg[s] === mg || this.ap2Mg[s] === mg || this.inMg[s] === mg;
  }

  /** Slot s is nowhere (until it is located). */
  unplace(s: number): void {
    this.apMg[s] = -1;
    this.ap2Mg[s] = -1;
    this.inMg[s] = -1;
    this.frontMg[s] = -1;
    this.laneOf[s] = -1;
  }

  /** Forgets where slot s was (it changed hands). */
  forget(s: number): void {
    this.lastMg[s] = -1;
  }

  /** Finds the movement slot s approaches and the one it is in, along its planned (or likeliest) lanes. */
  locate(world: World, s: number): void {
    const engine = this.engine;
    const index = this.index;
    const npc = world.kind[s] === AgentKind.Controlled;
    let lanes: Int32Array;
    let off = 0;
    let count: number;
    let s0: number;
    if (npc && engine.planCount[s] > 0) {
      lanes = engine.planLanes;
      off = s * MAX_PLAN;
      count = engine.planCount[s];
      s0 = engine.planS[s];
    } else {
      const at = this.lanes.locate(world.x[s], world.y[s], world.yaw[s], 4, this.pos, Math.PI / 3);
      if (!at) {
        this.occupyByGeometry(world, s);
        return;
      }
      count = this.lanes.lanesAhead(at.lane, at.s, LOOKAHEAD_M, npc ? world.goalX[s] : NaN, npc ? world.goalY[s] : NaN, this.seq);
      lanes = this.seq;
      s0 = at.s;
    }
    const here = lanes[off];
    this.laneOf[s] = here;
    this.sOf[s] = s0;
    if (this.laneVehicles[here].length === 0) this.laneTouched.push(here);
    this.laneVehicles[here].push(s);
    const half = 0.5 * world.length[s];
    // inside a movement whose entry lies on an earlier lane (the plan starts at the current lane): the one it was
    // in or approaching in the last step where several share this lane
    let pick = -1, pickAlong = 0;
    for (const [mg, q] of index.laterOnLane[here]) {
      const { j, m } = index.refs[mg];
      const mv = index.layout.junctions[j].movements[m];
      if (!matches(mv.pieces, q, lanes, off, count)) continue;
      let before = 0;
      for (let r = 0; r < q; r++) before += mv.pieces[r].s1 - mv.pieces[r].s0;
      const along = before + (s0 - mv.pieces[q].s0);
      if (!(along + half >= 0 && along - half < index.clear[mg])) continue;
      const known = mg === this.lastMg[s];
      if (pick < 0 || known) {
        pick = mg;
        pickAlong = along;
        if (known) break;
      }
    }
    if (pick >= 0) {
      this.inMg[s] = pick;
      this.inA[s] = pickAlong;
      this.register(this.occupants, pick, s);
    }
    // the movements along the lanes ahead
    let d = -s0;
    for (let k = 0; k < count && d < LOOKAHEAD_M; k++) {
      const lane = lanes[off + k];
      for (const mg of index.entriesOnLane[lane]) {
        const { j, m } = index.refs[mg];
        const mv = index.layout.junctions[j].movements[m];
        if (!matches(mv.pieces, 0, lanes, off + k, count - k)) continue;
        const dEntry = d + mv.entry.s;
        if (dEntry - half > 0) {
          if (this.apMg[s] < 0 || dEntry < this.apD[s]) {
            if (this.apMg[s] >= 0 && index.refs[this.apMg[s]].j !== j) {
              this.ap2Mg[s] = this.apMg[s];
              this.ap2D[s] = this.apD[s];
            }
            this.apMg[s] = mg;
            this.apD[s] = dEntry;
          } else if (index.refs[this.apMg[s]].j !== j && (this.ap2Mg[s] < 0 || dEntry < this.ap2D[s])) {
            this.ap2Mg[s] = mg;
            this.ap2D[s] = dEntry;
          }
        } else if (dEntry + index.clear[mg] + half > 0) {
          if (this.inMg[s] < 0) {
            this.inMg[s] = mg;
            this.inA[s] = -dEntry;
            this.register(this.occupants, mg, s);
          } else if (this.frontMg[s] < 0 && index.refs[mg].j !== index.refs[this.inMg[s]].j) {
            // its front is already in the next junction: a vehicle giving way there must see it (it approaches
            // that movement no longer)
            this.frontMg[s] = mg;
            this.frontA[s] = -dEntry;
            this.registerTaking(this.occupants, mg, s, npc);
          }
        }
      }
      d += this.lanes.lanes[lane].length;
    }
    if (this.apMg[s] >= 0) this.registerTaking(this.approachers, this.apMg[s], s, npc);
    if (this.inMg[s] < 0) this.occupyByGeometry(world, s);
    this.lastMg[s] = this.inMg[s] >= 0 ? this.inMg[s] : this.apMg[s];
  }

  /** A vehicle in a junction off any movement it is matched to: it occupies the movements whose path it is on. */
  private occupyByGeometry(world: World, s: number): void {
    this.geoSlot = s;
    this.index.movementsAt(world.x[s], world.y[s], world.yaw[s], OCCUPY_M + 0.5 * world.width[s], this.occupyAt);
  }

  /** occupyByGeometry's visitor, made once */
  private geoSlot = -1;
  private readonly occupyAt = (mg: number, at: number): void => {
    const s = this.geoSlot;
    if (this.inMg[s] < 0) {
      this.inMg[s] = mg;
      this.inA[s] = at;
    }
    this.register(this.occupants, mg, s);
  };

  /** Registers slot s for movement mg: an NPC for the movement its plan takes, an ego for any of that approach's. */
  private registerTaking(lists: number[][], mg: number, s: number, npc: boolean): void {
    if (npc) {
      this.register(lists, mg, s);
      return;
    }
    const { j, m } = this.index.refs[mg];
    const cj = this.index.layout.junctions[j];
    for (const mi of cj.junction.approaches[cj.movements[m].approach].movements) this.register(lists, this.index.base[j] + mi, s);
  }

  private register(lists: number[][], mg: number, s: number): void {
    if (lists[mg].length === 0 && this.occupants[mg].length + this.approachers[mg].length === 0) this.touched.push(mg);
    if (!lists[mg].includes(s)) lists[mg].push(s);
  }
}

/** Do a movement's pieces from index q on follow the lanes lanes[off …] (as far as both go)? */
function matches(pieces: ReadonlyArray<{ lane: number }>, q: number, lanes: Int32Array, off: number, count: number): boolean {
  for (let r = q, k = 0; r < pieces.length && k < count; r++, k++) if (pieces[r].lane !== lanes[off + k]) return false;
  return true;
}
