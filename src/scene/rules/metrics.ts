/**
 * Junction figures, fed once per policy step (after the rules decided, before the NPCs move) with where every
 * vehicle is relative to the junction movements:
 *
 * - red-light and stop-sign violations: from geometry alone, with the rules on or off (line-watch.ts);
 * - standing in a junction: an NPC inside a junction (front past the entry, rear not past the exit) below 0.5 m/s;
 *   the longest stand, how many stands lasted more than 10 s (and where the longest of them were, so that a user
 *   can go and look), and box blocking — NPC-seconds standing inside while the exit ahead of it has no room for it;
 * - throughput: vehicles through each movement (in from its first half), per approach lane and hour, and per hour
 *   of green at signals (the textbook saturation flow is about 1,800 per hour of green per lane);
 * - where NPCs wait: NPC-seconds held at each junction's lines, by rule (the busiest five), so that a slow map
 *   shows which junction and which rule cost it its speed;
 * - an ego (a real or simulated car) crossing on red is an event, counted apart: it is not held against the NPCs.
 *
 * All but the violations read the rule layer's places of the vehicles, so they are only there while the rules run.
 */
import { POLICY_DT } from '../../traffic/engine.js';
import { HOLD_REASON_NAMES } from '../../traffic/stops.js';
import { AgentKind, type World } from '../../traffic/world.js';
import type { StopLineWatch } from './line-watch.js';
import type { TrafficRules } from './rules.js';
import { HELD_TOP, LONG_LOG, LONG_STAND_S, LONG_TOP, STAND_MPS } from './rule-params.js';

export interface JunctionSummary {
  /** junctions of the map by control: signal, all_way_stop, stop, yield, priority */
  junctions: Record<string, number>;
  signal_groups: number;
  red_light_violations: number;
  /** of those, by movements no signal group names (governed by their approach's through group) */
  red_light_violations_ungoverned: number;
  /** of those, right turns on red without the full stop at the line */
  right_turns_on_red_without_stop: number;
  stop_sign_violations: number;
  /** stop lines NPCs crossed (the violations' denominator) */
  line_crossings: number;
  /** an NPC standing inside a junction: the longest stand [s], stands over 10 s */
  junction_stand_max_s: number;
  junction_stands_over_10s: number;
  /** the longest of the stands over 10 s, longest first (at most 5) */
  long_stands: JunctionStand[];
  /** NPC-seconds standing inside a junction whose exit had no room */
  box_blocking_npc_s: number;
  /** vehicles through the junctions per approach lane and hour (lanes with traffic) */
  throughput_veh_per_h_per_lane: number;
  /** at signals: vehicles per hour of green per approach lane (mean over lanes that had green and traffic; saturation ≈ 1,800) */
  throughput_veh_per_green_h_per_lane: number;
  /** the busiest signal approach lane, per hour of green */
  throughput_veh_per_green_h_max: number;
  movements_completed: number;
  /** share of NPC-steps held by each rule */
  held_red_share: number;
  held_yellow_share: number;
  held_stop_sign_share: number;
  held_give_way_share: number;
  held_box_share: number;
  /** where NPCs were held at a line: the junctions with the most NPC-seconds held, most first (at most 5) */
  held_by_junction: JunctionHeld[];
  ego_red_light_runs: number;
}

/** the rules that hold an NPC at a line (HoldReason 1…5) */
export const HELD_RULES = HOLD_REASON_NAMES.slice(1) as ReadonlyArray<Exclude<(typeof HOLD_REASON_NAMES)[number], 'none'>>;
const REASONS = HOLD_REASON_NAMES.length;
/** standHold: behind a vehicle that a rule holds (beyond the HoldReason codes) */
const HOLD_QUEUE = 255;

/** NPC-seconds held at one junction's lines, in all and by rule (as SUMO's waiting time, per junction) */
export type JunctionHeld = { junction: string; npc_s: number } & Record<(typeof HELD_RULES)[number], number>;


/** A stand of more than 10 s inside a junction: where, who, from when, how long, and the rule holding it then */
export interface JunctionStand {
  junction: string;
  /** the movement it stood in (its id: junction id . movement index) */
  movement: string;
  npc: number;
  from_s: number;
  seconds: number;
  /** the rule holding it when it came to a stand (red, yellow, stop_sign, give_way, box, crosswalk), queue: behind a
   * vehicle that such a rule holds, or none: other traffic ahead of it */
  held_by: (typeof HOLD_REASON_NAMES)[number] | 'queue';
}

export class JunctionMetrics {
  private prevIn: Int32Array;
  /** per slot: how far into its movement it was when first seen in it [m] */
  private enteredA: Float64Array;
  private prevId: Int32Array;
  private standSteps: Int32Array;
  /** per slot: when its present stand began, in which movement, held by which rule */
  private standFrom: Float64Array;
  private standMg: Int32Array;
  private standHold: Uint8Array;
  private standNpc: Int32Array;
  /** stands over 10 s that have ended (the longest LONG_LOG) */
  private readonly longLog: JunctionStand[] = [];
  private standMaxSteps = 0;
  private longStands = 0;
  private boxSteps = 0;
  private npcSteps = 0;
  private readonly held = new Float64Array(REASONS);
  /** NPC-steps held per junction and rule: [junction · REASONS + reason] */
  private heldAt: Float64Array;
  private steps = 0;
  /** per movement: vehicles that completed it */
  private readonly done: Int32Array;
  /** per signal group: steps it showed green */
  private readonly greenSteps: Int32Array;

  constructor(private readonly rules: TrafficRules, private readonly watch: StopLineWatch) {
    const cap = rules.places.apMg.length;
    this.prevIn = new Int32Array(cap).fill(-1);
    this.enteredA = new Float64Array(cap);
    this.prevId = new Int32Array(cap).fill(-0x7fffffff);
    this.standSteps = new Int32Array(cap);
    this.standFrom = new Float64Array(cap);
    this.standMg = new Int32Array(cap).fill(-1);
    this.standHold = new Uint8Array(cap);
    this.standNpc = new Int32Array(cap);
    this.done = new Int32Array(rules.index.refs.length);
    this.greenSteps = new Int32Array(rules.layout.groups.length);
    this.heldAt = new Float64Array(rules.layout.junctions.length * REASONS);
  }

  reset(): void {
    this.prevIn.fill(-1);
    this.prevId.fill(-0x7fffffff);
    this.standSteps.fill(0);
    this.longLog.length = 0;
    this.standMaxSteps = this.longStands = this.boxSteps = this.npcSteps = this.steps = 0;
    this.held.fill(0);
    this.heldAt.fill(0);
    this.done.fill(0);
    this.greenSteps.fill(0);
  }

  observe(world: World, time: number): void {
    const r = this.rules;
    const { inMg } = r.places;
    const stops = r.stops;
    this.steps++;
    const layout = r.layout;
    for (let g = 0; g < layout.groups.length; g++) {
      const c = r.signals.groupCode(g);
      if (c === 'G' || c === 'g') this.greenSteps[g]++;
    }
    for (let s = 0; s < world.count; s++) {
      const present = world.present[s] === 1 && (world.kind[s] === AgentKind.Controlled || world.kind[s] === AgentKind.External);
      if (!present) {
        this.prevIn[s] = -1;
        this.endStand(s);
        continue;
      }
      const npc = world.kind[s] === AgentKind.Controlled;
      const fresh = this.prevId[s] !== world.id[s];
      this.prevId[s] = world.id[s];
      if (fresh) {
        this.prevIn[s] = -1;
        this.endStand(s);
      }
      const inn = inMg[s];
      // left a movement it had come into from its first half: one that only touched a movement's far end (a
      // vehicle leaving a merging movement, placed by the junction's outline in the other one whose path ends
      // where it drives on: FMTC's J3, C's right turn and A's left turn into lane 119) did not drive it
      const wasIn = this.prevIn[s];
      if (wasIn >= 0 && inn !== wasIn && this.enteredA[s] < 0.5 * r.index.clear[wasIn]) this.done[wasIn]++;
      if (inn >= 0 && inn !== wasIn) this.enteredA[s] = r.places.inA[s];
      this.prevIn[s] = inn;
      if (!npc) continue;
      this.npcSteps++;
      const reason = stops.reason[s];
      this.held[reason]++;
      const heldMg = r.memory.heldMg[s];
      if (reason !== 0 && heldMg >= 0) this.heldAt[r.index.refs[heldMg].j * REASONS + reason]++;
      if (inn >= 0 && world.speed(s) < STAND_MPS) {
        if (this.standSteps[s] === 0) {
          this.standFrom[s] = time;
          this.standMg[s] = inn;
          this.standHold[s] = this.holdOf(s, reason);
          this.standNpc[s] = world.id[s];
        }
        this.standSteps[s]++;
        if (this.standSteps[s] > this.standMaxSteps) this.standMaxSteps = this.standSteps[s];
        if (this.standSteps[s] === Math.round(LONG_STAND_S / POLICY_DT) + 1) this.longStands++;
        if (this.exitFull(world, s, inn)) this.boxSteps++;
      } else this.endStand(s);
    }
  }

  /** The hold of slot s as it comes to a stand: its rule's, else queue when the vehicle the shield held it back for
   * is itself held by a rule (the crosswalk give-way included), else none. */
  private holdOf(s: number, reason: number): number {
    if (reason !== 0) return reason;
    const shield = this.rules.engine.shield;
    const ahead = shield && this.rules.engine.shieldEnabled ? shield.waitingFor[s] : -1;
    return ahead >= 0 && this.rules.stops.reason[ahead] !== 0 ? HOLD_QUEUE : 0;
  }

  /** Slot s no longer stands in a junction: a stand over 10 s goes into the log. */
  private endStand(s: number): void {
    const stand = this.longStand(s);
    this.standSteps[s] = 0;
    if (!stand) return;
    this.longLog.push(stand);
    if (this.longLog.length > LONG_LOG) {
      this.longLog.sort(byLength);
      this.longLog.length = LONG_LOG;
    }
  }

  /** Slot s's present stand, when it is over 10 s. */
  private longStand(s: number): JunctionStand | null {
    const steps = this.standSteps[s];
    if (steps <= Math.round(LONG_STAND_S / POLICY_DT)) return null;
    const mg = this.standMg[s];
    const { j, m } = this.rules.index.refs[mg];
    const cj = this.rules.layout.junctions[j];
    return { junction: cj.junction.id, movement: cj.movements[m].id, npc: this.standNpc[s], from_s: Math.round(this.standFrom[s] * 10) / 10, seconds: Math.round(steps * POLICY_DT * 10) / 10, held_by: this.standHold[s] === HOLD_QUEUE ? 'queue' : HOLD_REASON_NAMES[this.standHold[s]] ?? 'none' };
  }

  /** The longest stands over 10 s, ended or still going on. */
  private longestStands(): JunctionStand[] {
    const all = [...this.longLog];
    for (let s = 0; s < this.standSteps.length; s++) {
      const stand = this.longStand(s);
      if (stand) all.push(stand);
    }
    return all.sort(byLength).slice(0, LONG_TOP);
  }

  /** An NPC standing inside a junction: is the road past its movement's exit full? */
  private exitFull(world: World, s: number, mg: number): boolean {
    const r = this.rules;
    const { laneOf, inMg, inA } = r.places;
    const { m } = r.index.refs[mg];
    const mv = r.junctionOf(mg).movements[m];
    const along = inA[s];
    const toExit = r.index.clear[mg] - along;
    // a vehicle ahead within its own length past the exit, standing too
    for (let w = 0; w < world.count; w++) {
      if (w === s || !world.present[w]) continue;
      if (laneOf[w] !== mv.exit.lane && inMg[w] !== mg) continue;
      const dx = world.x[w] - world.x[s], dy = world.y[w] - world.y[s];
      const ahead = dx * Math.cos(world.yaw[s]) + dy * Math.sin(world.yaw[s]);
      if (ahead > 0 && ahead < toExit + world.length[s] + 0.5 * world.length[w] + 2 && world.speed(w) < STAND_MPS) return true;
    }
    return false;
  }

  private heldByJunction(): JunctionHeld[] {
    const junctions = this.rules.layout.junctions;
    const npcS = (steps: number) => Math.round(steps * POLICY_DT * 10) / 10;
    const out: JunctionHeld[] = [];
    for (let j = 0; j < junctions.length; j++) {
      const at = this.heldAt.subarray(j * REASONS, (j + 1) * REASONS);
      let steps = 0;
      for (let k = 1; k < REASONS; k++) steps += at[k];
      if (steps === 0) continue;
      const h = { junction: junctions[j].junction.id, npc_s: npcS(steps) } as JunctionHeld;
      HELD_RULES.forEach((rule, k) => (h[rule] = npcS(at[k + 1])));
      out.push(h);
    }
    return out.sort((a, b) => b.npc_s - a.npc_s || (a.junction < b.junction ? -1 : 1)).slice(0, HELD_TOP);
  }

  summary(): JunctionSummary {
    const r = this.rules;
    const layout = r.layout;
    const byControl: Record<string, number> = {};
    for (const cj of layout.junctions) byControl[cj.control] = (byControl[cj.control] ?? 0) + 1;
    const hours = (this.steps * POLICY_DT) / 3600;
    // per approach lane: vehicles through, and the green time its group had
    const perLane = new Map<string, { n: number; greenSteps: number; signal: boolean }>();
    for (let mg = 0; mg < r.index.refs.length; mg++) {
      if (this.done[mg] === 0) continue;
      const { j, m } = r.index.refs[mg];
      const cj = layout.junctions[j];
      const mv = cj.movements[m];
      const key = `${cj.junction.id}:${mv.entry.lane}`;
      const g = cj.groupOfMovement[m];
      const e = perLane.get(key) ?? { n: 0, greenSteps: 0, signal: g >= 0 };
      e.n += this.done[mg];
      if (g >= 0) e.greenSteps = Math.max(e.greenSteps, this.greenSteps[g]);
      perLane.set(key, e);
    }
    const lanes = [...perLane.values()];
    const perHour = lanes.length && hours > 0 ? lanes.reduce((a, e) => a + e.n, 0) / lanes.length / hours : 0;
    const green = lanes.filter((e) => e.signal && e.greenSteps > 0).map((e) => e.n / ((e.greenSteps * POLICY_DT) / 3600));
    const share = (k: number) => (this.npcSteps ? this.held[k] / this.npcSteps : 0);
    return {
      junctions: byControl,
      signal_groups: layout.groups.length,
      ...this.violations(),
      junction_stand_max_s: Math.round(this.standMaxSteps * POLICY_DT * 10) / 10,
      junction_stands_over_10s: this.longStands,
      long_stands: this.longestStands(),
      box_blocking_npc_s: Math.round(this.boxSteps * POLICY_DT * 10) / 10,
      throughput_veh_per_h_per_lane: Math.round(perHour),
      throughput_veh_per_green_h_per_lane: green.length ? Math.round(green.reduce((a, b) => a + b, 0) / green.length) : 0,
      throughput_veh_per_green_h_max: green.length ? Math.round(Math.max(...green)) : 0,
      movements_completed: this.done.reduce((a, b) => a + b, 0),
      held_red_share: share(1),
      held_yellow_share: share(2),
      held_stop_sign_share: share(3),
      held_give_way_share: share(4),
      held_box_share: share(5),
      held_by_junction: this.heldByJunction(),
    };
  }

  /** The violations, counted from geometry whether the rules run or not (line-watch.ts). */
  violations(): Pick<JunctionSummary, 'red_light_violations' | 'red_light_violations_ungoverned' | 'right_turns_on_red_without_stop' | 'stop_sign_violations' | 'line_crossings' | 'ego_red_light_runs'> {
    const c = this.watch.counts;
    return {
      red_light_violations: c.red_light_violations, red_light_violations_ungoverned: c.red_light_violations_ungoverned,
      right_turns_on_red_without_stop: c.right_turns_on_red_without_stop, stop_sign_violations: c.stop_sign_violations,
      line_crossings: c.line_crossings, ego_red_light_runs: c.ego_red_light_runs,
    };
  }
}

const byLength = (a: JunctionStand, b: JunctionStand) => b.seconds - a.seconds || a.from_s - b.from_s;
