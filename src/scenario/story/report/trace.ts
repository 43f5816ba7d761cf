/**
 * AttemptTrace: what an attempt's report plots, recorded step by step by the host beside the StoryRunner. Per
 * sample: t, the speed of every followed vehicle, and for each (ego, other) pair the bumper gap along the ego's
 * lane direction and the TTC, computed exactly as the min_ttc criterion does (criteria.ts: geometry.ts's
 * `along` on the ego's lane heading, TTC counted only while the other is in the ego's path), so the plotted
 * minimum is the criterion's value; plus the runner's happenings (events, verdicts, the end).
 *
 * The host, per step:
 *   trace.sample(world);                      // the snapshot runner.step reads, BEFORE step: step writes the
 *   const r = runner.step(world, dt, poses);   //   actors' poses at t + dt, which a host's world may share
 *   trace.note(r.happenings);
 *
 * Columns are growable typed arrays (doubling), so a step allocates nothing but the amortised growth. Bounded:
 * at `maxRows` rows the trace halves itself (keeps every other row) and from then on keeps one sample in
 * `stride` (1, 2, 4, …): the whole attempt stays plotted at a coarser step, never more than maxRows rows. The
 * per-pair minima (TTC, gap) are kept exactly over every sample, decimated or not, up to the end happening (as
 * the criteria stop judging there). Happenings are capped at `maxHappenings` (later ones are counted only).
 */
import { along, ttcOf, type Along } from '../geometry.js';
import type { Condition, StorySpec } from '../spec.js';
import type { Happening, HappeningKind, StoryVehicle, StoryWorld } from '../world.js';

export interface TraceOptions {
  /** the vehicles under test: gap and TTC are measured from each of them */
  egos: readonly string[];
  /** the others to follow (the story's actors, NPCs by id): speeds, and gap and TTC from each ego */
  others: readonly string[];
  /** the lane direction where a vehicle is: pass `(v) => runner.headingOf(v)` to measure as the criteria do */
  headingOf: (v: StoryVehicle) => number;
  /** rows kept before decimating (rounded up to even); default 200,000 */
  maxRows?: number;
  /** happenings kept; default 10,000 */
  maxHappenings?: number;
}

/** A pair's exact minimum over the judged samples (null: none finite). */
export interface TraceMin {
  value: number | null;
  at_s: number | null;
}

/** The JSON form (toJSON), from which a report is rebuilt. Units: s, m, m/s; null = absent or infinite. */
export interface TraceJson {
  version: 1;
  egos: string[];
  /** every followed vehicle, egos first; `speed` has a column per entry */
  vehicles: string[];
  /** samples seen, rows kept, one row per `stride` samples */
  samples: number;
  rows: number;
  stride: number;
  t: number[];
  speed: Record<string, Array<number | null>>;
  pairs: Array<{ ego: string; other: string; gap: Array<number | null>; ttc: Array<number | null>; min_ttc: TraceMin; min_gap: TraceMin }>;
  happenings: Happening[];
  /** happenings beyond maxHappenings, not kept */
  happenings_dropped: number;
}

const DEFAULT_ROWS = 200_000;
const DEFAULT_HAPPENINGS = 10_000;
const m: Along = { lon: 0, lat: 0, gap: 0, closing: 0, va: 0, inPath: false };

/**
 * Who to follow for a story: egos = the vehicles criteria judge and triggers measure from (not the story's
 * actors); others = the actors, then the other vehicles criteria and triggers name. First-seen order.
 */
export function followedIds(spec: StorySpec): { egos: string[]; others: string[] } {
  const actors = new Set(spec.actors.map((a) => a.id));
  const egos: string[] = [];
  const others: string[] = [...actors];
  const ego = (id: string) => !actors.has(id) && !egos.includes(id) && egos.push(id);
  const other = (id: string | null) => id !== null && !others.includes(id) && others.push(id);
  const walk = (c: Condition): void => {
    switch (c.kind) {
      case 'distance': case 'headway': case 'ttc': ego(c.from); other(c.to); break;
      case 'reach': case 'traveled': case 'route_s': case 'speed': case 'stopped': ego(c.of); break;
      case 'collision': ego(c.of); other(c.with); break;
      case 'all': case 'any': c.of.forEach(walk); break;
      default: break;
    }
  };
  for (const c of spec.criteria) {
    ego(c.ego);
    if (c.kind === 'no_collision') other(c.with);
    if (c.kind === 'min_ttc' || c.kind === 'min_distance') other(c.to);
    if (c.kind === 'stopped_before' && c.point.kind === 'vehicle') other(c.point.id);
  }
  for (const e of spec.events) if (e.trigger) walk(e.trigger);
  if (spec.end) walk(spec.end);
  return { egos, others: others.filter((id) => !egos.includes(id)) };
}

export class AttemptTrace {
  readonly egos: readonly string[];
  /** egos first, then the others */
  readonly vehicles: readonly string[];
  readonly maxRows: number;
  private readonly maxHappenings: number;
  private readonly headingOf: (v: StoryVehicle) => number;
  private cap: number;
  private n = 0;
  private kept = 0;
  private every = 1;
  private tCol: Float64Array;
  private speedCols: Float64Array[];
  private gapCols: Float64Array[];
  private ttcCols: Float64Array[];
  private readonly minTtc: Float64Array;
  private readonly minTtcAt: Float64Array;
  private readonly minGap: Float64Array;
  private readonly minGapAt: Float64Array;
  /** the end happening's t: samples after it are plotted but not judged */
  private endT = Infinity;
  private readonly hints: Int32Array;
  private readonly views: (StoryVehicle | null)[];
  private readonly happenings: Happening[] = [];
  private dropped = 0;

  constructor(opts: TraceOptions) {
    this.egos = [...opts.egos];
    this.vehicles = [...this.egos, ...opts.others.filter((id) => !this.egos.includes(id))];
    this.headingOf = opts.headingOf;
    this.maxRows = Math.max(2, 2 * Math.ceil((opts.maxRows ?? DEFAULT_ROWS) / 2));
    this.maxHappenings = opts.maxHappenings ?? DEFAULT_HAPPENINGS;
    this.cap = Math.min(1024, this.maxRows);
    const nv = this.vehicles.length, np = this.egos.length * (nv - 1);
    this.tCol = new Float64Array(this.cap);
    this.speedCols = Array.from({ length: nv }, () => new Float64Array(this.cap));
    this.gapCols = Array.from({ length: np }, () => new Float64Array(this.cap));
    this.ttcCols = Array.from({ length: np }, () => new Float64Array(this.cap));
    this.minTtc = new Float64Array(np).fill(Infinity);
    this.minTtcAt = new Float64Array(np).fill(NaN);
    this.minGap = new Float64Array(np).fill(Infinity);
    this.minGapAt = new Float64Array(np).fill(NaN);
    this.hints = new Int32Array(nv);
    this.views = this.vehicles.map(() => null);
  }

  /** samples seen */
  get samples(): number {
    return this.n;
  }

  /** rows kept */
  get rows(): number {
    return this.kept;
  }

  /** one row kept per `stride` samples (1 until the first decimation) */
  get stride(): number {
    return this.every;
  }

  /** The (ego, other) pairs in column order. */
  pairs(): Array<{ ego: string; other: string }> {
    const out: Array<{ ego: string; other: string }> = [];
    for (const e of this.egos) for (const o of this.vehicles) if (o !== e) out.push({ ego: e, other: o });
    return out;
  }

  /** The exact minimum TTC from ego to other over the judged samples, and when. */
  minTtcOf(ego: string, other: string): TraceMin {
    const p = this.pairIndex(ego, other);
    return p < 0 ? { value: null, at_s: null } : minOf(this.minTtc[p], this.minTtcAt[p]);
  }

  /** The exact minimum bumper gap (while the other is ahead) over the judged samples, and when. */
  minGapOf(ego: string, other: string): TraceMin {
    const p = this.pairIndex(ego, other);
    return p < 0 ? { value: null, at_s: null } : minOf(this.minGap[p], this.minGapAt[p]);
  }

  /** Records the state at world.t (see the header for when to call it). */
  sample(world: StoryWorld): void {
    const vs = this.views;
    for (let k = 0; k < vs.length; k++) vs[k] = this.find(world, k);
    const judged = world.t <= this.endT;
    const s = this.n++;
    let row = -1;
    if (s % this.every === 0) {
      if (this.kept === this.cap) this.makeRoom();
      // a decimation doubles the stride; with maxRows even, s still falls on it (checked all the same)
      if (s % this.every === 0) row = this.kept++;
    }
    if (row >= 0) {
      this.tCol[row] = world.t;
      for (let k = 0; k < vs.length; k++) this.speedCols[k][row] = vs[k] ? vs[k]!.speed : NaN;
    }
    const nv = vs.length;
    let p = 0;
    for (let e = 0; e < this.egos.length; e++) {
      const a = vs[e];
      const th = a ? this.headingOf(a) : 0;
      for (let o = 0; o < nv; o++) {
        if (o === e) continue;
        const b = vs[o];
        let gap = NaN, ttc = NaN;
        if (a && b) {
          along(a, b, th, m);
          // the same quantity as the min_ttc criterion: TTC only to a vehicle in the ego's path
          ttc = m.inPath ? ttcOf(m) : Infinity;
          if (m.lon > 0) gap = m.gap;
          if (judged) {
            if (!(ttc >= this.minTtc[p])) {
              this.minTtc[p] = ttc;
              this.minTtcAt[p] = world.t;
            }
            if (gap < this.minGap[p]) {
              this.minGap[p] = gap;
              this.minGapAt[p] = world.t;
            }
          }
        }
        if (row >= 0) {
          this.gapCols[p][row] = gap;
          this.ttcCols[p][row] = ttc;
        }
        p++;
      }
    }
  }

  /** Keeps a step's happenings (copied: the runner reuses its array). */
  note(happenings: readonly Happening[]): void {
    for (const h of happenings) {
      if (h.kind === 'end') this.endT = Math.min(this.endT, h.t);
      if (this.happenings.length >= this.maxHappenings) this.dropped++;
      else this.happenings.push({ t: h.t, kind: h.kind, id: h.id, detail: h.detail });
    }
  }

  /** sample then note, for a host whose world does not share the actors' pose objects with the runner. */
  record(world: StoryWorld, happenings: readonly Happening[] = []): void {
    this.sample(world);
    this.note(happenings);
  }

  /** Happenings of the given kinds (all when none given). */
  happeningsOf(...kinds: HappeningKind[]): readonly Happening[] {
    return kinds.length === 0 ? this.happenings : this.happenings.filter((h) => kinds.includes(h.kind));
  }

  toJSON(): TraceJson {
    const col = (c: Float64Array) => Array.from(c.subarray(0, this.kept), num);
    const speed: Record<string, Array<number | null>> = {};
    this.vehicles.forEach((id, k) => (speed[id] = col(this.speedCols[k])));
    return {
      version: 1,
      egos: [...this.egos],
      vehicles: [...this.vehicles],
      samples: this.n,
      rows: this.kept,
      stride: this.every,
      t: Array.from(this.tCol.subarray(0, this.kept), (x) => Number(x.toFixed(6))),
      speed,
      pairs: this.pairs().map((pr, p) => ({
        ...pr,
        gap: col(this.gapCols[p]),
        ttc: col(this.ttcCols[p]),
        min_ttc: minOf(this.minTtc[p], this.minTtcAt[p]),
        min_gap: minOf(this.minGap[p], this.minGapAt[p]),
      })),
      happenings: this.happenings.map((h) => ({ ...h })),
      happenings_dropped: this.dropped,
    };
  }

  private pairIndex(ego: string, other: string): number {
    const e = this.egos.indexOf(ego), o = this.vehicles.indexOf(other);
    if (e < 0 || o < 0 || o === e) return -1;
    return e * (this.vehicles.length - 1) + (o < e ? o : o - 1);
  }

  private find(world: StoryWorld, k: number): StoryVehicle | null {
    const vs = world.vehicles, id = this.vehicles[k];
    const h = this.hints[k];
    if (h < vs.length && vs[h].id === id) return vs[h];
    for (let i = 0; i < vs.length; i++) {
      if (vs[i].id === id) {
        this.hints[k] = i;
        return vs[i];
      }
    }
    return null;
  }

  /** Grows the columns (doubling) or, at maxRows, keeps every other row and doubles the stride. */
  private makeRoom(): void {
    if (this.cap < this.maxRows) {
      this.cap = Math.min(this.maxRows, 2 * this.cap);
      const grow = (c: Float64Array) => {
        const g = new Float64Array(this.cap);
        g.set(c.subarray(0, this.kept));
        return g;
      };
      this.tCol = grow(this.tCol);
      this.speedCols = this.speedCols.map(grow);
      this.gapCols = this.gapCols.map(grow);
      this.ttcCols = this.ttcCols.map(grow);
      return;
    }
    const halve = (c: Float64Array) => {
      for (let i = 0, j = 0; i < this.kept; i += 2, j++) c[j] = c[i];
    };
    halve(this.tCol);
    this.speedCols.forEach(halve);
    this.gapCols.forEach(halve);
    this.ttcCols.forEach(halve);
    this.kept = Math.ceil(this.kept / 2);
    this.every *= 2;
  }
}

/** JSON numbers: 6 decimals (µs, µm) is below anything plotted; non-finite is null. */
function num(x: number): number | null {
  return Number.isFinite(x) ? Number(x.toFixed(6)) : null;
}

function minOf(v: number, at: number): TraceMin {
  return Number.isFinite(v) ? { value: v, at_s: at } : { value: null, at_s: null };
}
