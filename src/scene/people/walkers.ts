/**
 * Ambient people at crosswalks: a pure core over typed arrays, stepped at the policy step (10 Hz) with no clock,
 * no I/O and no allocation per step. Each person slot comes and goes: it arrives at a kerb of a crosswalk picked
 * at random (after a short absence), waits, crosses along the walking axis at its own speed (walking-speed.ts),
 * and leaves at the far kerb; the slot then comes back as a new person (a new id) somewhere else.
 *
 * When a waiting person starts: on 'walk', or at an unsignalised crosswalk ('none'), and only when no vehicle is
 * on the crosswalk or too close to stop before it (gap acceptance: its front, along its heading, reaches the
 * crosswalk within the distance it needs to stop at WALKER_GAP_DECEL_MPS2 after WALKER_GAP_REACTION_S). Never on 'flashing' or
 * 'dont_walk' (unless obeySignals is switched off, which tests use to make the don't-walk figure count).
 * Crossing, a person stands rather than walk into a moving vehicle's body (a standing one they walk past).
 */
import { obbOverlap } from '../../traffic/obb.js';
import { PERSON_ID_BASE } from '../../traffic/object-kind.js';
import { AgentKind, type World } from '../../traffic/world.js';
import { SeededRandom } from '../../util/random.js';
import type { CrosswalkGeometry } from './crosswalks.js';
import { drawWalkingSpeed } from './walking-speed.js';
import { WalkCode, walkCode, type WalkCodeId, type WalkStateSource } from './walk-state.js';
import { WALKER_BODY_CLEAR_M, WALKER_FIRST_ARRIVALS_S, WALKER_GAP_DECEL_MPS2, WALKER_GAP_REACTION_S, WALKER_GAP_SPARE_M, WALKER_GIVE_UP_S, WALKER_IGNORES_BELOW_MPS } from './tuning.js';

/** A person's box at real size: the Euro NCAP EPTa adult target's 0.5 m shoulder width, and 0.3 m deep (torso) [m] */
export const PERSON_WIDTH_M = 0.5;
export const PERSON_DEPTH_M = 0.3;

export const Phase = { Away: 0, Waiting: 1, Crossing: 2 } as const;

/** between leaving one crosswalk and arriving at the next [s] */
const AWAY_MIN_S = 2, AWAY_SPREAD_S = 8;
/** a person assumes a vehicle brakes at this for them, after this reaction, and keeps this to spare (exported for markComing) */
export const GAP = { decel: WALKER_GAP_DECEL_MPS2, reactionS: WALKER_GAP_REACTION_S, spareM: WALKER_GAP_SPARE_M } as const;
/** vehicleThreat: a vehicle's body on the crosswalk, or one coming too close to stop */
const THREAT_ON = 1, THREAT_COMING = 2;

export class Walkers {
  /** how many people the scene keeps (slots below it come and go; those above it leave when they finish) */
  target = 0;
  /** people obey the pedestrian signals (tests switch it off to see the don't-walk figure count) */
  obeySignals = true;
  /** people look for vehicles before they start and while they cross */
  lookForVehicles = true;
  capacity = 0;
  /** slots at and above this are all away (the loops over people stop here) */
  span = 0;
  readonly phase: Uint8Array;
  readonly cw: Int32Array;
  /** +1 from kerb a to b, −1 back */
  readonly dir: Float64Array;
  /** axis coordinate now and one step ago [m] */
  readonly u: Float64Array;
  readonly prevU: Float64Array;
  /** offset across the axis (within the crosswalk's width) [m] */
  readonly lat: Float64Array;
  /** own walking speed, and the speed of this step's motion [m/s] */
  readonly walkSpeed: Float64Array;
  readonly speed: Float64Array;
  readonly id: Float64Array;
  /** away: when it arrives [s]; waiting: since when [s] */
  readonly at: Float64Array;
  /** waiting: the signal lets it go (walk, or unsignalised) — it is about to step onto the crosswalk */
  readonly ready: Uint8Array;
  /** per crosswalk: 1 an NPC whose planned lanes run onto it is too close to stop before it, 2 one inside a junction
   * is let out first (written by the scene before each step, see give-way.ts markComing; a turning NPC's heading
   * alone does not show where it goes) */
  readonly coming: Uint8Array;
  /** the walk state its crosswalk showed when it started (WalkCode) */
  readonly startCode: Uint8Array;
  private rng = new SeededRandom(1);
  private nextId = 0;

  constructor(readonly geo: CrosswalkGeometry, capacity: number) {
    this.capacity = capacity;
    this.phase = new Uint8Array(capacity);
    this.cw = new Int32Array(capacity);
    this.dir = new Float64Array(capacity);
    this.u = new Float64Array(capacity);
    this.prevU = new Float64Array(capacity);
    this.lat = new Float64Array(capacity);
    this.walkSpeed = new Float64Array(capacity);
    this.speed = new Float64Array(capacity);
    this.id = new Float64Array(capacity);
    this.at = new Float64Array(capacity);
    this.ready = new Uint8Array(capacity);
    this.startCode = new Uint8Array(capacity);
    this.coming = new Uint8Array(geo.count);
  }

  /** Everyone away, arriving over the first WALKER_FIRST_ARRIVALS_S; ids from PERSON_ID_BASE again. */
  reset(seed: number): void {
    // a stream of its own (seed-derived), so the NPCs' random numbers are the same with or without people
    this.rng = new SeededRandom((seed ^ 0x5eed9e0) >>> 0);
    this.nextId = 0;
    this.phase.fill(Phase.Away);
    this.ready.fill(0);
    this.speed.fill(0);
    this.span = 0;
    if (this.geo.count === 0) return;
    for (let i = 0; i < this.capacity; i++) this.at[i] = this.rng.next() * WALKER_FIRST_ARRIVALS_S;
  }

  /** people on the map now (waiting or crossing) */
  get present(): number {
    let n = 0;
    for (let i = 0; i < this.span; i++) if (this.phase[i] !== Phase.Away) n++;
    return n;
  }

  /** Position of person i at a fraction alpha of this step's motion. */
  x(i: number, alpha = 1): number {
    const c = this.cw[i];
    const u = this.prevU[i] + alpha * (this.u[i] - this.prevU[i]);
    return this.geo.ax[c] + u * this.geo.ux[c] - this.lat[i] * this.geo.uy[c];
  }

  y(i: number, alpha = 1): number {
    const c = this.cw[i];
    const u = this.prevU[i] + alpha * (this.u[i] - this.prevU[i]);
    return this.geo.ay[c] + u * this.geo.uy[c] + this.lat[i] * this.geo.ux[c];
  }

  /** heading: along the axis the way it walks */
  yaw(i: number): number {
    const c = this.cw[i];
    return Math.atan2(this.dir[i] * this.geo.uy[c], this.dir[i] * this.geo.ux[c]);
  }

  /**
   * The step at simulation time t: arrivals, starts (from the walk states and the vehicles at t), and the motion
   * to t + dt.
   */
  step(t: number, dt: number, walk: WalkStateSource, world: World): void {
    const geo = this.geo;
    if (geo.count === 0) return;
    const span = Math.max(this.span, Math.min(this.target, this.capacity));
    let last = -1;
    for (let i = 0; i < span; i++) {
      if (this.phase[i] !== Phase.Away) last = i;
      this.prevU[i] = this.u[i];
      this.speed[i] = 0;
      const ph = this.phase[i];
      if (ph === Phase.Away) {
        if (i < this.target && this.at[i] <= t + 1e-9) this.arrive(i, t);
        continue;
      }
      const c = this.cw[i];
      if (ph === Phase.Waiting) {
        const code = walkCode(walk.walkState(c));
        const allowed = !this.obeySignals || code === WalkCode.Walk || code === WalkCode.None;
        const threat = allowed && this.lookForVehicles ? this.vehicleThreat(c, world) : 0;
        // about to step on (vehicles that can stop for it do): let go, and not kept back by a vehicle standing on the crosswalk
        this.ready[i] = allowed && threat !== THREAT_ON ? 1 : 0;
        if (allowed && threat === 0) {
          this.phase[i] = Phase.Crossing;
          this.ready[i] = 0;
          this.startCode[i] = code;
        } else {
          if (t - this.at[i] > WALKER_GIVE_UP_S || i >= this.target) this.leave(i, t);
          continue;
        }
      }
      // crossing
      const next = this.u[i] + this.dir[i] * this.walkSpeed[i] * dt;
      if (this.lookForVehicles && this.bodyAhead(i, next, world)) continue;
      this.u[i] = next;
      this.speed[i] = this.walkSpeed[i];
      // off as they step off the stripes at the far kerb (walking on along the axis to the waiting spot there would
      // cross ground near the lanes that no NPC gives way on: FMTC seed 4, a person 3.7 m past the stripes struck)
      const end = this.dir[i] > 0 ? geo.length[c] : 0;
      if (this.dir[i] * (next - end) >= 0) this.leave(i, t);
    }
    // arrivals below the target can come any step: the span keeps them; above it, only the people still out
    this.span = Math.max(last + 1, Math.min(this.target, this.capacity));
  }

  /**
   * A person put on crosswalk c by hand (a test, a scripted scene): at axis coordinate u, walking the way dir
   * says at walkSpeed, crossing from now on (it leaves at the far kerb as anyone does). Returns its id, or −1
   * when every slot is taken.
   */
  place(c: number, dir: 1 | -1, u: number, walkSpeed: number, t: number, lat = 0): number {
    if (!(c >= 0 && c < this.geo.count)) throw new RangeError(`no crosswalk ${c} (the map has ${this.geo.count})`);
    if (!(walkSpeed > 0 && walkSpeed <= 10)) throw new RangeError(`walking speed ${walkSpeed} m/s is not one`);
    // the first free slot at or above the target (those below it are the ambient people's)
    let i = Math.min(this.target, this.capacity);
    while (i < this.capacity && this.phase[i] !== Phase.Away) i++;
    if (i === this.capacity) return -1;
    this.span = Math.max(this.span, i + 1);
    this.cw[i] = c;
    this.dir[i] = dir;
    this.u[i] = this.prevU[i] = u;
    this.lat[i] = lat;
    this.walkSpeed[i] = walkSpeed;
    this.speed[i] = 0;
    this.id[i] = PERSON_ID_BASE + this.nextId++;
    this.at[i] = t;
    this.ready[i] = 0;
    this.startCode[i] = WalkCode.None;
    this.phase[i] = Phase.Crossing;
    return this.id[i];
  }

  private arrive(i: number, t: number): void {
    const geo = this.geo;
    const c = Math.min(geo.count - 1, Math.floor(this.rng.next() * geo.count));
    let dir = this.rng.next() < 0.5 ? 1 : -1;
    // only at a kerb with a waiting spot clear of the lanes (crosswalks.ts): else the other kerb, else later
    if (Number.isNaN(dir > 0 ? geo.waitA[c] : geo.waitB[c])) dir = -dir;
    if (Number.isNaN(dir > 0 ? geo.waitA[c] : geo.waitB[c])) {
      this.at[i] = t + AWAY_MIN_S + this.rng.next() * AWAY_SPREAD_S;
      return;
    }
    // across the crosswalk's width, within the part of the waiting spot clear of the lanes (crosswalks.ts)
    const room = Math.max(geo.halfWidth[c] - 0.5 * PERSON_WIDTH_M - 0.2, 0);
    const lo = Math.max(-room, dir > 0 ? geo.waitLatLoA[c] : geo.waitLatLoB[c]);
    const hi = Math.min(room, dir > 0 ? geo.waitLatHiA[c] : geo.waitLatHiB[c]);
    this.cw[i] = c;
    this.dir[i] = dir;
    this.u[i] = this.prevU[i] = dir > 0 ? -geo.waitA[c] : geo.length[c] + geo.waitB[c];
    this.lat[i] = lo + this.rng.next() * Math.max(hi - lo, 0);
    this.walkSpeed[i] = drawWalkingSpeed(this.rng);
    this.id[i] = PERSON_ID_BASE + this.nextId++;
    this.at[i] = t;
    this.ready[i] = 0;
    this.phase[i] = Phase.Waiting;
  }

  private leave(i: number, t: number): void {
    this.phase[i] = Phase.Away;
    this.ready[i] = 0;
    this.at[i] = t + AWAY_MIN_S + this.rng.next() * AWAY_SPREAD_S;
  }

  /**
   * A vehicle on crosswalk c (THREAT_ON), or one whose front, along its heading, reaches it within the distance it needs to
   * stop (reaction, then WALKER_GAP_DECEL_MPS2: THREAT_COMING)? 0: none.
   */
  private vehicleThreat(c: number, world: World): number {
    const geo = this.geo;
    // an NPC let out of a junction first (give-way.ts markComing) counts as one on the crosswalk: nobody is let go
    if (this.coming[c] === 2) return THREAT_ON;
    let out = this.coming[c] ? THREAT_COMING : 0;
    for (let s = 0; s < world.count; s++) {
      if (!world.present[s]) continue;
      const k = world.kind[s];
      if (k !== AgentKind.Controlled && k !== AgentKind.External) continue;
      const half = 0.5 * world.length[s];
      const x = world.x[s], y = world.y[s];
      // the body on the crosswalk (its centre within half its length of the stripes)
      if (geo.distance(c, x, y) <= half) return THREAT_ON;
      const v = world.speed(s);
      if (v < WALKER_IGNORES_BELOW_MPS) continue;
      const reach = (v * v) / (2 * WALKER_GAP_DECEL_MPS2) + v * WALKER_GAP_REACTION_S + WALKER_GAP_SPARE_M;
      const cs = Math.cos(world.yaw[s]), sn = Math.sin(world.yaw[s]);
      const fx = x + half * cs, fy = y + half * sn;
      if (geo.distance(c, fx, fy) > reach + 0.5 * world.width[s]) continue;
      if (this.rayHits(c, fx, fy, cs, sn, reach, 0.5 * world.width[s])) out = THREAT_COMING;
    }
    return out;
  }

  /** Does the ray from (x, y) along (cs, sn), `reach` long, pass within `pad` of crosswalk c's rectangle? (slabs) */
  private rayHits(c: number, x: number, y: number, cs: number, sn: number, reach: number, pad: number): boolean {
    const geo = this.geo;
    const u0 = geo.u(c, x, y), w0 = geo.w(c, x, y);
    const du = cs * geo.ux[c] + sn * geo.uy[c];
    const dw = -cs * geo.uy[c] + sn * geo.ux[c];
    this.t0 = 0;
    this.t1 = reach;
    return this.slab(u0, du, -pad, geo.length[c] + pad) && this.slab(w0, dw, -geo.halfWidth[c] - pad, geo.halfWidth[c] + pad);
  }

  /** the ray's interval [t0, t1], narrowed slab by slab */
  private t0 = 0;
  private t1 = 0;

  /** narrows [t0, t1] to lo ≤ p + t·d ≤ hi; false when it is empty */
  private slab(p: number, d: number, lo: number, hi: number): boolean {
    if (Math.abs(d) < 1e-9) return p >= lo && p <= hi;
    let ta = (lo - p) / d, tb = (hi - p) / d;
    if (ta > tb) { const q = ta; ta = tb; tb = q; }
    if (ta > this.t0) this.t0 = ta;
    if (tb < this.t1) this.t1 = tb;
    return this.t0 <= this.t1;
  }

  /** Would person i at axis coordinate `next` come within WALKER_BODY_CLEAR_M of a moving vehicle's body? */
  private bodyAhead(i: number, next: number, world: World): boolean {
    const c = this.cw[i];
    const geo = this.geo;
    const px = geo.ax[c] + next * geo.ux[c] - this.lat[i] * geo.uy[c];
    const py = geo.ay[c] + next * geo.uy[c] + this.lat[i] * geo.ux[c];
    // a standing vehicle they walk past (one held for them would otherwise wait for them for ever)
    return vehicleOnPerson(world, px, py, this.yaw(i), WALKER_BODY_CLEAR_M, WALKER_IGNORES_BELOW_MPS) >= 0;
  }

  /** The walk state code a person started on (for the figures). */
  startedOn(i: number): WalkCodeId {
    return this.startCode[i] as WalkCodeId;
  }
}

/**
 * The first vehicle (NPC or ego) moving at `minSpeed` or more whose body overlaps a person's box at (px, py, yaw)
 * grown by `pad` on every side: its slot, or −1. The walkers' look (pad: the clearance they keep) and the strike
 * figure (pad 0) ask the same question.
 */
export function vehicleOnPerson(world: World, px: number, py: number, yaw: number, pad: number, minSpeed: number): number {
  for (let s = 0; s < world.count; s++) {
    if (!world.present[s]) continue;
    const k = world.kind[s];
    if (k !== AgentKind.Controlled && k !== AgentKind.External) continue;
    if (world.speed(s) < minSpeed) continue;
    const dx = world.x[s] - px, dy = world.y[s] - py;
    const r = 0.5 * (world.length[s] + world.width[s]) + 1 + pad;
    if (dx * dx + dy * dy > r * r) continue;
    if (obbOverlap(px, py, yaw, 0.5 * PERSON_DEPTH_M + pad, 0.5 * PERSON_WIDTH_M + pad, world.x[s], world.y[s], world.yaw[s], 0.5 * world.length[s], 0.5 * world.width[s])) return s;
  }
  return -1;
}
