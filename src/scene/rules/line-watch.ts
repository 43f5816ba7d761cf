/**
 * Red-light and stop-sign violations from geometry alone, the same with the NPC rules on or off: a figure that
 * stays 0 whatever the NPCs do proves nothing. Every stop line is a segment across its lane at a movement's entry
 * (painted, or where the lane enters the junction), perpendicular to the lane; a vehicle runs it when its front
 * bumper crosses the segment forwards between two policy steps. Which movement it then takes decides which signal
 * governed it (the movements of one entry may be in different groups: a left arrow): while their states at the
 * crossing differ, the crossing waits until the vehicle is clearly on one movement's path.
 *
 * - red light: the governing group showed red during the step it crossed in (entering on yellow is legal); a
 *   right turn on red is legal after a full stop (≤ FULL_STOP_MPS within STOP_WITHIN_M before the line), as
 *   Korean law allows, never without one; a movement no group names is governed by its approach's through group
 *   (counted apart too: a map should name every movement);
 * - stop sign: crossing a stop-controlled approach's line without such a full stop.
 *
 * It reads the world (poses, speeds, sizes), the layout's movement geometry and the signal states, nothing of the
 * rules. NPCs are counted; an ego (a real or simulated car, an actor) running a red is an event, not held against
 * the NPCs. No allocation per step: lines in a uniform grid of typed arrays, pending crossings in typed arrays.
 */
import type { LaneNetwork } from '../../traffic/lanes.js';
import { AgentKind, type World } from '../../traffic/world.js';
import type { GroupStateCode } from '../junction-kit/handoff.js';
import type { TrafficLayout } from '../junction-kit/layout.js';
import {
  ALONG_COS, CELL_M, FULL_STOP_MPS, LINE_HALF_WIDTH_M, PATHS_APART_M, RESOLVE_AFTER_M, RESOLVE_LATEST_M, RESOLVE_WITHIN_S, SAME_LINE_COS, SAME_LINE_M, STOP_WITHIN_M,
  WATCH_SAMPLE_M,
} from './rule-params.js';


const RED = 'r'.charCodeAt(0);
const NO_RUNS: readonly LineRun[] = [];

/** A violation, for the scene's events and the record. */
export interface LineRun {
  kind: 'red' | 'stop_sign';
  /** the world slot, its id then and whether it was an NPC */
  slot: number;
  id: number;
  npc: boolean;
  junction: string;
  /** the signal group that governed it ('' at a stop sign), and whether it was inherited (the movement has none) */
  group: string;
  inherited: boolean;
  turn: string;
  /** when it crossed [s] and how fast [m/s] */
  t: number;
  speed: number;
}

export interface LineWatchCounts {
  red_light_violations: number;
  /** of those, by movements no signal group names (governed by their approach's through group) */
  red_light_violations_ungoverned: number;
  /** of those, right turns on red without a full stop at the line */
  right_turns_on_red_without_stop: number;
  stop_sign_violations: number;
  ego_red_light_runs: number;
  /** stop lines crossed (by NPCs) */
  line_crossings: number;
}

export class StopLineWatch {
  /** per line: a point on it, the lane's direction there, its movements [first, end) in lineMv */
  private readonly lx: Float64Array;
  private readonly ly: Float64Array;
  private readonly lcos: Float64Array;
  private readonly lsin: Float64Array;
  private readonly lMvStart: Int32Array;
  private readonly lineMv: Int32Array;
  /** per line: 1 when its approach has a stop sign (stop-controlled) */
  private readonly lStop: Uint8Array;
  /** per global movement: junction, group (inherited when −1), inherited, right turn, sampled path [pStart, pEnd) */
  private readonly mvJ: Int32Array;
  private readonly mvGroup: Int32Array;
  private readonly mvInherited: Uint8Array;
  private readonly mvRight: Uint8Array;
  private readonly mvTurn: string[];
  private readonly pStart: Int32Array;
  private readonly px: Float64Array;
  private readonly py: Float64Array;
  /** grid: cell → lines, CSR */
  private readonly cellStart: Int32Array;
  private readonly cellLines: Int32Array;
  /** the lines near one point (linesAround), reused every call */
  private readonly around: Int32Array;
  private readonly gx0: number;
  private readonly gy0: number;
  private readonly gw: number;
  private readonly gh: number;
  /** per slot: its front at the last step (NaN: not seen), its id then, the line it last stopped fully before (−1) */
  private readonly fx: Float64Array;
  private readonly fy: Float64Array;
  /**
   * this step's front, heading and speed per slot, and the time and world: what the per-slot passes read (handed
   * over in fields and typed arrays, not as arguments: a double passed to a call is a heap number each time)
   */
  private readonly nfx: Float64Array;
  private readonly nfy: Float64Array;
  private readonly hc: Float64Array;
  private readonly hs: Float64Array;
  private readonly spd: Float64Array;
  private now = 0;
  private readonly sid: Float64Array;
  private readonly stoppedAt: Int32Array;
  /** per slot: a crossing waiting for its movement (line −1: none), the codes of the step it crossed in */
  private readonly pendLine: Int32Array;
  private readonly pendT: Float64Array;
  private readonly pendSpeed: Float64Array;
  private readonly pendX: Float64Array;
  private readonly pendY: Float64Array;
  /** the pending crossing was made after a full stop at its line; it is already counted (only whose it was is open) */
  private readonly pendStopped: Uint8Array;
  private readonly pendCounted: Uint8Array;
  private readonly pendCodes: Uint8Array;
  /** per slot: the red run last counted was an NPC's */
  private readonly runKindNpc: Uint8Array;
  /** the groups' states during the step that just ran (as a char code each) */
  private readonly codes: Uint8Array;
  private readonly nextCodes: Uint8Array;
  private haveCodes = false;
  private readonly runs: LineRun[] = [];
  readonly counts: LineWatchCounts = { red_light_violations: 0, red_light_violations_ungoverned: 0, right_turns_on_red_without_stop: 0, stop_sign_violations: 0, ego_red_light_runs: 0, line_crossings: 0 };

  constructor(private readonly layout: TrafficLayout, lanes: LaneNetwork, capacity: number) {
    // the movements, numbered over the map, with their paths sampled
    const mvs: Array<{ j: number; m: number }> = [];
    layout.junctions.forEach((cj, j) => cj.movements.forEach((_, m) => mvs.push({ j, m })));
    const nMv = mvs.length;
    this.mvJ = new Int32Array(nMv);
    this.mvGroup = new Int32Array(nMv);
    this.mvInherited = new Uint8Array(nMv);
    this.mvRight = new Uint8Array(nMv);
    this.mvTurn = [];
    this.pStart = new Int32Array(nMv + 1);
    const xs: number[] = [], ys: number[] = [];
    const pt = { x: 0, y: 0 };
    const globalOf = new Map<string, number>();
    mvs.forEach(({ j, m }, g) => {
      const cj = layout.junctions[j];
      const mv = cj.movements[m];
      globalOf.set(`${j}:${m}`, g);
      this.mvJ[g] = j;
      const own = cj.groupOfMovement[m];
      const group = own >= 0 ? own : inheritedGroup(layout, j, mv.approach);
      this.mvGroup[g] = group;
      this.mvInherited[g] = own < 0 && group >= 0 ? 1 : 0;
      this.mvRight[g] = mv.turn === 'right' ? 1 : 0;
      this.mvTurn.push(mv.turn);
      this.pStart[g] = xs.length;
      for (const piece of mv.pieces) {
        for (let s = piece.s0; s < piece.s1; s += WATCH_SAMPLE_M) {
          lanes.pointInto(piece.lane, s, pt);
          xs.push(pt.x);
          ys.push(pt.y);
        }
      }
      xs.push(mv.exit.x);
      ys.push(mv.exit.y);
    });
    this.pStart[nMv] = xs.length;
    this.px = Float64Array.from(xs);
    this.py = Float64Array.from(ys);
    // the lines: one per entry point — the movements that start there share it, whichever lane each starts on
    // (intersection paths that fork at the line start on lanes of their own)
    const list: Array<{ x: number; y: number; yaw: number; stop: boolean; mvs: number[] }> = [];
    layout.junctions.forEach((cj, j) => {
      for (const mv of cj.movements) {
        const { x, y, yaw } = mv.entry;
        let line = list.find((l) => Math.hypot(l.x - x, l.y - y) < SAME_LINE_M && Math.cos(l.yaw - yaw) > SAME_LINE_COS);
        if (!line) list.push((line = { x, y, yaw, stop: false, mvs: [] }));
        if (cj.control === 'all_way_stop' || (cj.control === 'stop' && cj.approaches[mv.approach]?.sign === 'stop')) line.stop = true;
        line.mvs.push(globalOf.get(`${j}:${mv.index}`)!);
      }
    });
    const n = list.length;
    this.lx = Float64Array.from(list, (l) => l.x);
    this.ly = Float64Array.from(list, (l) => l.y);
    this.lcos = Float64Array.from(list, (l) => Math.cos(l.yaw));
    this.lsin = Float64Array.from(list, (l) => Math.sin(l.yaw));
    this.lStop = Uint8Array.from(list, (l) => (l.stop ? 1 : 0));
    this.lMvStart = new Int32Array(n + 1);
    const mvOfLine: number[] = [];
    list.forEach((l, i) => {
      this.lMvStart[i] = mvOfLine.length;
      mvOfLine.push(...l.mvs);
    });
    this.lMvStart[n] = mvOfLine.length;
    this.lineMv = Int32Array.from(mvOfLine);
    // the grid over the lines
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const l of list) {
      minX = Math.min(minX, l.x);
      minY = Math.min(minY, l.y);
      maxX = Math.max(maxX, l.x);
      maxY = Math.max(maxY, l.y);
    }
    if (n === 0) minX = minY = maxX = maxY = 0;
    this.gx0 = minX - CELL_M;
    this.gy0 = minY - CELL_M;
    this.gw = Math.max(1, Math.ceil((maxX - this.gx0 + CELL_M) / CELL_M) + 1);
    this.gh = Math.max(1, Math.ceil((maxY - this.gy0 + CELL_M) / CELL_M) + 1);
    const cells = this.gw * this.gh;
    const count = new Int32Array(cells + 1);
    const cellOf = (i: number) => this.cell(this.lx[i], this.ly[i]);
    for (let i = 0; i < n; i++) count[cellOf(i) + 1]++;
    for (let c = 0; c < cells; c++) count[c + 1] += count[c];
    this.cellStart = count;
    this.cellLines = new Int32Array(n);
    this.around = new Int32Array(n);
    const fill = new Int32Array(cells);
    for (let i = 0; i < n; i++) {
      const c = cellOf(i);
      this.cellLines[count[c] + fill[c]++] = i;
    }
    this.fx = new Float64Array(capacity).fill(NaN);
    this.nfx = new Float64Array(capacity);
    this.nfy = new Float64Array(capacity);
    this.hc = new Float64Array(capacity);
    this.hs = new Float64Array(capacity);
    this.spd = new Float64Array(capacity);
    this.fy = new Float64Array(capacity).fill(NaN);
    this.sid = new Float64Array(capacity).fill(NaN);
    this.stoppedAt = new Int32Array(capacity).fill(-1);
    this.pendLine = new Int32Array(capacity).fill(-1);
    this.pendT = new Float64Array(capacity);
    this.pendSpeed = new Float64Array(capacity);
    this.pendX = new Float64Array(capacity);
    this.pendY = new Float64Array(capacity);
    this.pendStopped = new Uint8Array(capacity);
    this.pendCounted = new Uint8Array(capacity);
    this.runKindNpc = new Uint8Array(capacity);
    const groups = layout.groups.length;
    this.pendCodes = new Uint8Array(capacity * Math.max(groups, 1));
    this.codes = new Uint8Array(Math.max(groups, 1));
    this.nextCodes = new Uint8Array(Math.max(groups, 1));
  }

  private cell(x: number, y: number): number {
    const cx = Math.min(this.gw - 1, Math.max(0, Math.floor((x - this.gx0) / CELL_M)));
    const cy = Math.min(this.gh - 1, Math.max(0, Math.floor((y - this.gy0) / CELL_M)));
    return cy * this.gw + cx;
  }

  reset(): void {
    this.fx.fill(NaN);
    this.sid.fill(NaN);
    this.stoppedAt.fill(-1);
    this.pendLine.fill(-1);
    this.haveCodes = false;
    this.runs.length = 0;
    const c = this.counts;
    c.red_light_violations = c.red_light_violations_ungoverned = c.right_turns_on_red_without_stop = c.stop_sign_violations = c.ego_red_light_runs = c.line_crossings = 0;
  }

  /** The violations since the last call (for the scene's events; nothing allocated when there are none). */
  takeRuns(): readonly LineRun[] {
    return this.runs.length === 0 ? NO_RUNS : this.runs.splice(0, this.runs.length);
  }

  /**
   * Once per policy step, before it: the world as the last step left it (time t) and the signal states from t on.
   * The crossings made during the last step are judged on the states of that step (the ones given last time).
   */
  observe(world: World, t: number, code: (group: number) => GroupStateCode): void {
    const groups = this.layout.groups.length;
    this.now = t;
    for (let g = 0; g < groups; g++) this.nextCodes[g] = code(g).charCodeAt(0);
    if (!this.haveCodes) this.codes.set(this.nextCodes);
    for (let s = 0; s < world.count; s++) {
      const kind = world.kind[s];
      if (world.present[s] !== 1 || (kind !== AgentKind.Controlled && kind !== AgentKind.External)) {
        this.fx[s] = NaN;
        this.settle(s);
        continue;
      }
      const id = world.id[s];
      if (this.sid[s] !== id) {
        this.settle(s);
        this.sid[s] = id;
        this.fx[s] = NaN;
        this.stoppedAt[s] = -1;
      }
      const c = Math.cos(world.yaw[s]), sn = Math.sin(world.yaw[s]);
      const half = 0.5 * world.length[s];
      this.hc[s] = c;
      this.hs[s] = sn;
      this.nfx[s] = world.x[s] + half * c;
      this.nfy[s] = world.y[s] + half * sn;
      const vx = world.vx[s], vy = world.vy[s];
      this.spd[s] = Math.sqrt(vx * vx + vy * vy);
      if (this.fx[s] === this.fx[s]) this.crossings(s, world);
      if (this.pendLine[s] >= 0) this.resolve(s, world);
      // a full stop counts at the line it was made before, until the next line is crossed
      if (this.spd[s] <= FULL_STOP_MPS) this.noteStop(s);
      this.fx[s] = this.nfx[s];
      this.fy[s] = this.nfy[s];
    }
    this.codes.set(this.nextCodes);
    this.haveCodes = true;
  }

  /** Lines whose segment the front crossed forwards between (ax, ay) and (bx, by). */
  private crossings(s: number, world: World): void {
    const ax = this.fx[s], ay = this.fy[s], bx = this.nfx[s], by = this.nfy[s], c = this.hc[s], sn = this.hs[s];
    const n = this.linesAround(bx, by);
    for (let k = 0; k < n; k++) {
      const i = this.around[k];
      const lc = this.lcos[i], ls = this.lsin[i];
      if (c * lc + sn * ls < ALONG_COS) continue;
      const da = (ax - this.lx[i]) * lc + (ay - this.ly[i]) * ls;
      const db = (bx - this.lx[i]) * lc + (by - this.ly[i]) * ls;
      if (!(da < 0 && db >= 0)) continue;
      // where the front crossed, across the lane
      const w = da / (da - db);
      const qx = ax + (bx - ax) * w, qy = ay + (by - ay) * w;
      if (Math.abs(-(qx - this.lx[i]) * ls + (qy - this.ly[i]) * lc) > LINE_HALF_WIDTH_M) continue;
      this.crossed(s, i, world);
    }
  }

  /** The lines of the grid cell around (x, y) and its eight neighbours, into `around`; how many. */
  private linesAround(x: number, y: number): number {
    const cx = Math.floor((x - this.gx0) / CELL_M), cy = Math.floor((y - this.gy0) / CELL_M);
    let n = 0;
    for (let yy = Math.max(0, cy - 1); yy <= Math.min(this.gh - 1, cy + 1); yy++) {
      for (let xx = Math.max(0, cx - 1); xx <= Math.min(this.gw - 1, cx + 1); xx++) {
        const cell = yy * this.gw + xx;
        for (let k = this.cellStart[cell]; k < this.cellStart[cell + 1]; k++) this.around[n++] = this.cellLines[k];
      }
    }
    return n;
  }

  private crossed(s: number, line: number, world: World): void {
    const speed = this.spd[s], t = this.now;
    const npc = world.kind[s] === AgentKind.Controlled;
    if (npc) this.counts.line_crossings++;
    const stopped = this.stoppedAt[s] === line;
    this.stoppedAt[s] = -1;
    if (this.lStop[line] && !stopped && npc) {
      this.counts.stop_sign_violations++;
      const mv = this.lineMv[this.lMvStart[line]];
      this.runs.push({ kind: 'stop_sign', slot: s, id: world.id[s], npc, junction: this.layout.junctions[this.mvJ[mv]].junction.id, group: '', inherited: false, turn: '', t, speed });
    }
    // the movements of this entry: all red with no right turn it may make after a stop — a run whatever it drives
    // (which one is only for the record) — or states that differ: wait to see which movement it takes
    let red = 0, other = 0, right = 0;
    for (let k = this.lMvStart[line]; k < this.lMvStart[line + 1]; k++) {
      const mv = this.lineMv[k];
      const g = this.mvGroup[mv];
      if (g < 0) continue;
      if (this.codes[g] === RED) {
        red++;
        if (this.mvRight[mv]) right++;
      } else other++;
    }
    if (red === 0) return;
    const certain = other === 0 && (right === 0 || !stopped);
    if (certain && right === 0) {
      this.count(s, this.lineMv[this.lMvStart[line]], world);
      this.record(s, this.lineMv[this.lMvStart[line]], speed, t, world);
      return;
    }
    if (certain) this.count(s, -1, world);
    this.pendLine[s] = line;
    this.pendT[s] = t;
    this.pendSpeed[s] = speed;
    this.pendX[s] = world.x[s];
    this.pendY[s] = world.y[s];
    this.pendStopped[s] = stopped ? 1 : 0;
    this.pendCounted[s] = certain ? 1 : 0;
    const groups = this.layout.groups.length;
    this.pendCodes.set(this.codes.subarray(0, groups), s * groups);
  }

  /**
   * A pending crossing whose vehicle left (or was replaced) before its movement was clear: one already counted is
   * recorded against the entry's first movement; one that depended on the movement is dropped.
   */
  private settle(s: number): void {
    const line = this.pendLine[s];
    if (line < 0) return;
    this.pendLine[s] = -1;
    if (!this.pendCounted[s]) return;
    this.pendCounted[s] = 0;
    this.runs.push(this.runOf(s, this.lineMv[this.lMvStart[line]], this.pendSpeed[s], this.pendT[s], this.runKindNpc[s] === 1));
  }

  /** A pending crossing: decided once the vehicle is far enough along to say which movement it drives. */
  private resolve(s: number, world: World): void {
    const x = world.x[s], y = world.y[s], t = this.now;
    const line = this.pendLine[s];
    if (t - this.pendT[s] > RESOLVE_WITHIN_S) return this.settle(s);
    const moved = Math.hypot(x - this.pendX[s], y - this.pendY[s]);
    if (moved < RESOLVE_AFTER_M) return;
    // the movement whose path it is on, once the others are clearly further (paths part slowly on wide turns)
    let best = -1, bestD = Infinity, secondD = Infinity;
    for (let k = this.lMvStart[line]; k < this.lMvStart[line + 1]; k++) {
      const mv = this.lineMv[k];
      let d = Infinity;
      for (let p = this.pStart[mv]; p < this.pStart[mv + 1]; p++) d = Math.min(d, (this.px[p] - x) ** 2 + (this.py[p] - y) ** 2);
      d = Math.sqrt(d);
      if (d < bestD) {
        secondD = bestD;
        bestD = d;
        best = mv;
      } else if (d < secondD) secondD = d;
    }
    if (secondD - bestD < PATHS_APART_M && moved < RESOLVE_LATEST_M) return;
    this.pendLine[s] = -1;
    if (best < 0) return;
    if (this.pendCounted[s]) {
      // counted at the line: whose it was goes on the record, and among the figures it names
      this.pendCounted[s] = 0;
      if (world.kind[s] === AgentKind.Controlled) {
        if (this.mvRight[best]) this.counts.right_turns_on_red_without_stop++;
        if (this.mvInherited[best]) this.counts.red_light_violations_ungoverned++;
      }
      this.record(s, best, this.pendSpeed[s], this.pendT[s], world);
      return;
    }
    const g = this.mvGroup[best];
    const groups = this.layout.groups.length;
    if (g < 0 || this.pendCodes[s * groups + g] !== RED) return;
    // a right turn on red after the full stop is legal; any other movement entered on red is not
    if (this.mvRight[best] && this.pendStopped[s]) return;
    this.count(s, best, world);
    this.record(s, best, this.pendSpeed[s], this.pendT[s], world);
  }

  /** A red run by slot s: counted (mv −1: its movement not known yet, only that every one of its entry was red). */
  private count(s: number, mv: number, world: World): void {
    const npc = world.kind[s] === AgentKind.Controlled;
    this.runKindNpc[s] = npc ? 1 : 0;
    if (!npc) {
      this.counts.ego_red_light_runs++;
      return;
    }
    this.counts.red_light_violations++;
    if (mv < 0) return;
    if (this.mvInherited[mv]) this.counts.red_light_violations_ungoverned++;
    if (this.mvRight[mv]) this.counts.right_turns_on_red_without_stop++;
  }

  /** … and its record (an event of the scene), once its movement is known. */
  private record(s: number, mv: number, speed: number, t: number, world: World): void {
    this.runs.push(this.runOf(s, mv, speed, t, world.kind[s] === AgentKind.Controlled));
  }

  private runOf(s: number, mv: number, speed: number, t: number, npc: boolean): LineRun {
    return {
      kind: 'red', slot: s, id: this.sid[s], npc, junction: this.layout.junctions[this.mvJ[mv]].junction.id,
      group: this.layout.groups[this.mvGroup[mv]].id, inherited: this.mvInherited[mv] === 1, turn: this.mvTurn[mv], t, speed,
    };
  }

  /** A full stop with the front at most STOP_WITHIN_M before a line it is heading to: remembered for that line. */
  private noteStop(s: number): void {
    const fx = this.nfx[s], fy = this.nfy[s], c = this.hc[s], sn = this.hs[s];
    // (a front over a cell outside the grid is farther than STOP_WITHIN_M from every line: CELL_M is 25 m)
    const n = this.linesAround(fx, fy);
    for (let k = 0; k < n; k++) {
      const i = this.around[k];
      const lc = this.lcos[i], ls = this.lsin[i];
      if (c * lc + sn * ls < ALONG_COS) continue;
      const d = (fx - this.lx[i]) * lc + (fy - this.ly[i]) * ls;
      if (d > 0 || d < -STOP_WITHIN_M) continue;
      if (Math.abs(-(fx - this.lx[i]) * ls + (fy - this.ly[i]) * lc) > LINE_HALF_WIDTH_M) continue;
      this.stoppedAt[s] = i;
      return;
    }
  }
}

/**
 * The group that governs a movement no group names: its approach's through group (the one that is not the
 * protected left), else any group of that approach; −1 when the approach has none (an unsignalised junction).
 */
export function inheritedGroup(layout: TrafficLayout, junction: number, approach: number): number {
  const cj = layout.junctions[junction];
  let any = -1;
  for (const g of cj.groups) {
    const grp = layout.groups[g];
    if (grp.approach !== approach) continue;
    if (!grp.left) return g;
    any = g;
  }
  return any;
}
