/**
 * The signal desk of a hosted scene: what the REST API, the stream and the status show of its junctions and
 * signal groups, and the way live signal input (a roadside unit's SPaT, an operator) and plan changes reach the
 * scene — through SceneInputs, so they are made between policy steps and logged as scene calls (a recording
 * replays them at the same step).
 *
 * The controller keeps its live inputs to itself; the desk remembers the ones it made (states, until when, who)
 * so the API can say whether a junction is under live input. A reset ends them all, as it does in the scene.
 */
import type { LiveScene } from '../scene/index.js';
import { InputError } from '../scene/index.js';
import { walksNeverWalking } from '../scene/signals/index.js';
import type { ControlledJunction, GroupStateCode } from '../scene/junction-kit/index.js';
import type { LiveSignalInput, SignalPlan } from '../scene/signals/index.js';
import type { SignalPlanOverride } from '../scene/traffic-control.js';
import type { LiveSignalResult } from '../session/calls.js';
import type { SceneInputs } from '../session/inputs.js';
import { signalEntries, type SignalEntry } from '../scene/signals/signal-entries.js';

const r3 = (v: number) => Math.round(v * 1000) / 1000;

export interface LiveInputView {
  /** the live input still drives the junction (false once it has run out; the junction then goes back to its plan) */
  active: boolean;
  states: Record<string, GroupStateCode>;
  /** simulation time it ends at [s] */
  until_s: number;
  remaining_s: number;
  /** simulation time it was set [s] */
  set_at_s: number;
  /** who set it: "rest", or "stream client N, <token name or address>" */
  set_by: string;
}

export interface PlanView {
  cycle_s: number;
  offset_s: number;
  yellow_s: number;
  all_red_s: number;
  source: SignalPlan['source'];
  phases: Array<{ duration_s: number; states: string; by_group: Record<string, string> }>;
  actuated: SignalPlan['actuated'] | null;
  /** walk groups this plan never lets walk (a scenario's or the API's plan is not changed for them; derived plans give every walk its time) */
  walks_never: string[];
}

export interface JunctionView {
  id: string;
  control: ControlledJunction['control'];
  x: number;
  y: number;
  approaches: Array<{ letter: string; sign: 'stop' | 'yield' | null; heads: string[]; signs: string[] }>;
  /** its signal group ids, in the order of a plan's state characters */
  groups: string[];
  plan: PlanView | null;
  live: LiveInputView | null;
  signals: readonly SignalEntry[];
}

export interface SignalsView {
  sim_time_s: number;
  signals: readonly SignalEntry[];
  junctions: JunctionView[];
  /** map records bound to no junction (a stop line at a mid-block crosswalk, a head whose lanes meet nothing) */
  unbound: { heads: string[]; stop_lines: string[]; signs: string[] };
}

interface LiveRecord {
  states: Record<string, GroupStateCode>;
  until: number;
  setAt: number;
  by: string;
}

/** A request for a junction the map does not have (or that has no signals): HTTP 404, a stream error. */
export class UnknownJunctionError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'UnknownJunctionError';
  }
}

export class SignalDesk {
  private readonly live = new Map<string, LiveRecord>();

  constructor(private readonly scene: LiveScene, private readonly inputs: SceneInputs, private readonly simNow: () => number) {
    inputs.onCall((e) => {
      if (e.call.kind === 'reset' && e.error === null) this.live.clear();
    });
  }

  /** ids of the signalised junctions */
  get signalised(): string[] {
    return this.scene.control.layout.junctions.filter((j) => j.control === 'signal').map((j) => j.junction.id);
  }

  junction(id: string): ControlledJunction | undefined {
    return this.scene.control.layout.junctions.find((j) => j.junction.id === id);
  }

  /** The signalised junction of that id, else UnknownJunctionError naming it and the signalised ones. */
  signalisedJunction(id: string): ControlledJunction {
    const cj = this.junction(id);
    if (cj && cj.control === 'signal') return cj;
    const known = this.signalised;
    const list = known.length ? `signalised junctions: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''}` : 'this map has no signalised junction';
    const name = JSON.stringify(id.slice(0, 64));
    throw new UnknownJunctionError(cj ? `junction ${name} has no signals (control: ${cj.control}); ${list}` : `unknown junction ${name} (${list})`);
  }

  /** Sets a junction's groups live (made between policy steps; refused whole with the reason). */
  async setLive(input: LiveSignalInput, by: string): Promise<LiveSignalResult> {
    this.signalisedJunction(input.junction);
    const setAt = this.simNow();
    const r = await this.inputs.setSignalLive(input);
    this.live.set(r.junction, { states: r.states, until: r.until_s, setAt, by });
    return r;
  }

  /** Ends a junction's live input: back to its plan (through the clearances). */
  async release(junction: string): Promise<{ junction: string; released: boolean }> {
    this.signalisedJunction(junction);
    const released = await this.inputs.releaseSignal(junction);
    this.live.delete(junction);
    return { junction, released };
  }

  /** Replaces a junction's plan with an override of its current plan (validated whole). */
  async setPlan(override: SignalPlanOverride): Promise<PlanView> {
    const cj = this.signalisedJunction(override.junction);
    return this.planView(await this.inputs.setSignalPlan(override), cj);
  }

  private planView(p: SignalPlan, cj: ControlledJunction): PlanView {
    const ids = cj.groups.map((g) => this.scene.control.layout.groups[g].id);
    return {
      cycle_s: p.cycle_s, offset_s: p.offset_s, yellow_s: p.yellow_s, all_red_s: p.all_red_s, source: p.source,
      phases: p.phases.map((ph) => ({ duration_s: ph.duration_s, states: ph.states, by_group: Object.fromEntries(ids.map((id, k) => [id, ph.states[k]])) })),
      actuated: p.actuated ?? null,
      walks_never: walksNeverWalking(p, cj, this.scene.control.walkLayout.byJunction[this.scene.control.layout.junctions.indexOf(cj)].map((w) => this.scene.control.walkLayout.groups[w])),
    };
  }

  private liveView(id: string, t: number): LiveInputView | null {
    const l = this.live.get(id);
    if (!l) return null;
    const remaining = Math.max(0, l.until - t);
    return { active: remaining > 1e-9, states: l.states, until_s: r3(l.until), remaining_s: r3(remaining), set_at_s: r3(l.setAt), set_by: l.by };
  }

  junctionView(cj: ControlledJunction, t = this.simNow(), states = this.scene.control.signals(t)): JunctionView {
    const id = cj.junction.id;
    const plan = this.scene.control.controller.plan(id);
    return {
      id, control: cj.control, x: r3(cj.junction.x), y: r3(cj.junction.y),
      approaches: cj.approaches.map((a) => ({ letter: a.letter, sign: a.sign, heads: [...a.heads], signs: [...a.signs] })),
      groups: cj.groups.map((g) => this.scene.control.layout.groups[g].id),
      plan: plan ? this.planView(plan, cj) : null,
      live: this.liveView(id, t),
      signals: signalEntries(states).filter((s) => s.junction === id),
    };
  }

  /** Every group's state and every junction, at simulation time t (default: now). */
  view(t = this.simNow()): SignalsView {
    const states = this.scene.control.signals(t);
    const u = this.scene.control.layout.unbound;
    return {
      sim_time_s: r3(t),
      signals: signalEntries(states),
      junctions: this.scene.control.layout.junctions.map((cj) => this.junctionView(cj, t, states)),
      unbound: { heads: [...u.heads], stop_lines: [...u.stopLines], signs: [...u.signs] },
    };
  }
}
