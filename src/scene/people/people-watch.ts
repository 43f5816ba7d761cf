/**
 * The people figures, from geometry and whatever the give-way rule decided (as the line watch counts red runs
 * whether the rules run or not): people struck by an NPC (the person's box at real size overlapping the rotated
 * box of an NPC moving at STRIKE_MPS or more; once per person), NPCs whose front entered a crosswalk while a person on it
 * was in their path (in the conflict zone of give-way.ts, or walking into it within PATH_SOON_S; once per entry),
 * and people who started to cross while their signal showed don't-walk or flashing.
 * Observed once per policy step, after the engine's step; no allocation per step.
 */
import { AgentKind, type World } from '../../traffic/world.js';
import type { CrosswalkGeometry } from './crosswalks.js';
import { conflictReach } from './give-way.js';
import type { WalkStateSource } from './walk-state.js';
import { Phase, vehicleOnPerson, type Walkers } from './walkers.js';

/** a vehicle slower than this does not strike anyone (people walk past standing vehicles) [m/s] */
export const STRIKE_MPS = 0.3;
/** a person on the crosswalk walking into an NPC's conflict zone within this is in its path [s] */
export const PATH_SOON_S = 1;

export interface PeopleCounts {
  /** people who started to cross */
  people_crossings: number;
  /** people whose box an NPC's box overlapped (each person once) */
  people_struck: number;
  /** … an ego's box (each person once) */
  people_struck_by_ego: number;
  /** NPC fronts that entered a crosswalk while a person on it was in their path (or walking into it within PATH_SOON_S) */
  npc_crosswalk_entries_with_person: number;
  /** people who started to cross on don't-walk or flashing */
  people_started_on_dont_walk: number;
}

export class PeopleWatch {
  readonly counts: PeopleCounts = { people_crossings: 0, people_struck: 0, people_struck_by_ego: 0, npc_crosswalk_entries_with_person: 0, people_started_on_dont_walk: 0 };
  /** per person slot: the id seen last step, its phase, and whether it was struck (1 NPC, 2 ego) */
  private readonly seenId: Float64Array;
  private readonly seenPhase: Uint8Array;
  readonly struck: Uint8Array;
  /** per world slot: the crosswalk its front was on last step (−1 none) and the agent id then */
  private readonly frontCw: Int32Array;
  private readonly frontId: Int32Array;

  constructor(private readonly geo: CrosswalkGeometry, people: number, worldCapacity: number) {
    this.seenId = new Float64Array(people).fill(-1);
    this.seenPhase = new Uint8Array(people);
    this.struck = new Uint8Array(people);
    this.frontCw = new Int32Array(worldCapacity).fill(-1);
    this.frontId = new Int32Array(worldCapacity).fill(-1);
  }

  reset(): void {
    const c = this.counts;
    c.people_crossings = c.people_struck = c.people_struck_by_ego = c.npc_crosswalk_entries_with_person = c.people_started_on_dont_walk = 0;
    this.seenId.fill(-1);
    this.seenPhase.fill(0);
    this.struck.fill(0);
    this.frontCw.fill(-1);
    this.frontId.fill(-1);
  }

  observe(world: World, walkers: Walkers, walk: WalkStateSource): void {
    if (this.geo.count === 0) return;
    for (let i = 0; i < walkers.span; i++) {
      const ph = walkers.phase[i];
      if (walkers.id[i] !== this.seenId[i]) {
        this.seenId[i] = walkers.id[i];
        this.seenPhase[i] = Phase.Away;
        this.struck[i] = 0;
      }
      if (ph === Phase.Crossing && this.seenPhase[i] === Phase.Waiting) {
        this.counts.people_crossings++;
        const st = walk.walkState(walkers.cw[i]);
        if (st === 'dont_walk' || st === 'flashing') this.counts.people_started_on_dont_walk++;
      }
      this.seenPhase[i] = ph;
      if (ph === Phase.Away || this.struck[i] !== 0) continue;
      const by = this.strikeOf(i, world, walkers);
      this.struck[i] = by;
      if (by === 1) this.counts.people_struck++;
      else if (by === 2) this.counts.people_struck_by_ego++;
    }
    this.entries(world, walkers);
  }

  /** 1 when an NPC's box overlaps person i's, 2 an ego's, else 0 (a person brushing past a standing vehicle is not struck by it). */
  private strikeOf(i: number, world: World, walkers: Walkers): number {
    const s = vehicleOnPerson(world, walkers.x(i), walkers.y(i), walkers.yaw(i), 0, STRIKE_MPS);
    return s < 0 ? 0 : world.kind[s] === AgentKind.Controlled ? 1 : 2;
  }

  /** NPC fronts newly on a crosswalk, counted when a person on it is in their path. */
  private entries(world: World, walkers: Walkers): void {
    const geo = this.geo;
    for (let s = 0; s < world.count; s++) {
      if (!world.present[s] || world.kind[s] !== AgentKind.Controlled) {
        this.frontCw[s] = -1;
        continue;
      }
      if (this.frontId[s] !== world.id[s]) {
        this.frontId[s] = world.id[s];
        this.frontCw[s] = -1;
      }
      const half = 0.5 * world.length[s];
      const cs = Math.cos(world.yaw[s]), sn = Math.sin(world.yaw[s]);
      const fx = world.x[s] + half * cs, fy = world.y[s] + half * sn;
      let on = -1;
      for (let c = 0; c < geo.count; c++) {
        if (geo.distance(c, fx, fy) === 0) {
          on = c;
          break;
        }
      }
      if (on >= 0 && on !== this.frontCw[s]) {
        // the body's extent along the walking axis (its four corners projected)
        const along = Math.abs(cs * geo.ux[on] + sn * geo.uy[on]);
        const across = Math.sqrt(Math.max(0, 1 - along * along));
        const extent = half * along + 0.5 * world.width[s] * across;
        const uc = geo.u(on, world.x[s], world.y[s]);
        if (this.personInPath(on, uc - extent, uc + extent, walkers)) this.counts.npc_crosswalk_entries_with_person++;
      }
      this.frontCw[s] = on;
    }
  }

  /** A person on crosswalk c in the conflict zone of a body covering uLo … uHi, or walking into it within PATH_SOON_S? */
  private personInPath(c: number, uLo: number, uHi: number, walkers: Walkers): boolean {
    const reach = conflictReach(0);
    for (let i = 0; i < walkers.span; i++) {
      if (walkers.cw[i] !== c || walkers.phase[i] !== Phase.Crossing) continue;
      const u = walkers.u[i];
      if (u < 0 || u > this.geo.length[c]) continue;
      const dir = walkers.dir[i];
      if (dir > 0 ? u > uHi + reach : u < uLo - reach) continue;
      const toZone = Math.max(0, dir > 0 ? uLo - reach - u : u - (uHi + reach));
      if (toZone <= walkers.walkSpeed[i] * PATH_SOON_S) return true;
    }
    return false;
  }
}
