/**
 * What the story reads from the host each step and what it hands back. The host (the scene, `vils run`) builds
 * a StoryWorld snapshot at simulation time t; the story never looks at a clock or the scene itself, so the same
 * snapshots give the same actor motion, events and verdict.
 */
import type { ObjectKind } from '../../vehicle/index.js';
import type { VehicleState } from '../../vehicle/index.js';

/** One vehicle as the host sees it at t. Map frame (ENU metres), reference point = the box centre. */
export interface StoryVehicle extends VehicleState {
  /** egos by their scenario id, actors by their story id, NPCs as the host names them (e.g. `npc7`) */
  readonly id: string;
  /** longitudinal acceleration [m/s²] (negative when braking) */
  accel: number;
}

export interface StoryWorld {
  /** simulation time [s] */
  t: number;
  /** every vehicle: egos, NPCs and (once placed) the story's actors as the host moved them */
  vehicles: readonly StoryVehicle[];
  /** the junction ids with signals, when the host knows them (set_signal targets are then checked up front) */
  junctions?: readonly string[];
}

/** Where an actor is after a step (written into a caller-owned array: see StoryRunner.newPoses). */
export interface ActorPose extends StoryVehicle {
  /** map id of its lane ('' when the policy drives it and it is off every lane) */
  lane: string;
  /** metres along that lane */
  s: number;
  /** metres left of the lane's centre line */
  offset: number;
  /** script: put it at this pose; policy: the host's NPC policy drives it (the pose mirrors the world's) */
  controller: 'script' | 'policy';
  /** what it is: a vehicle, or a person at its target's size (the frames list it with this kind) */
  kind: ObjectKind;
}

/** Something the host must do (the story itself never touches the scene). */
export type StoryCommand =
  | { kind: 'hand_to_policy' | 'take_from_policy'; actor: string; t: number }
  | { kind: 'set_signal'; junction: string; phase: number | null; states: Record<string, string> | null; holdS: number | null; t: number };

export type HappeningKind =
  | 'event_started' | 'event_done' | 'event_skipped' | 'event_stopped'
  | 'action_done' | 'action_overridden' | 'action_failed'
  | 'criterion_passed' | 'criterion_failed'
  | 'actor_end_of_road' | 'start_line' | 'end';

/** What happened in a step, at simulation time t. `id`: the event, `event.action index`, criterion or actor. */
export interface Happening {
  t: number;
  kind: HappeningKind;
  id: string;
  detail: string;
}

/** A step's news (arrays reused from step to step: copy what you keep). */
export interface StepReport {
  happenings: Happening[];
  commands: StoryCommand[];
  /** the attempt is over (end condition, start timeout, abort or finish): nothing more is judged */
  ended: boolean;
}

export type Verdict = 'pending' | 'pass' | 'fail';
/** invalid: judged on data that did not hold (a gate of src/scenario/attempt-quality.ts failed): neither passed nor failed */
export type AttemptStatus = 'running' | 'passed' | 'failed' | 'not_started' | 'aborted' | 'invalid';

/** One data-quality gate over a served attempt (src/scenario/attempt-quality.ts). */
export interface GateResult {
  gate: string;
  ok: boolean;
  /** the worst measured value (null: nothing measured) */
  value: number | null;
  limit: number | null;
  unit: string;
  /** simulation times of the first failure and the last moment it still held [s] (null while it holds) */
  from_s: number | null;
  to_s: number | null;
  detail: string;
}

/** The JSON-serialisable outcome of an attempt (Infinity is written as null). */
export interface AttemptResult {
  status: AttemptStatus;
  /**
   * why the status is what it is: for a failure the criterion that failed first, its figure and when ('min_ttc
   * failed: TTC to cutter 0.92 s < 1 s at 14.20 s'), else why it ended (ended_by)
   */
  reason: string;
  /** why it ended: 'end condition', 'start timeout: …', 'finished by the host', an abort's reason (null while running) */
  ended_by: string | null;
  /** simulation times [s] the story started and ended (null while running) */
  start_s: number;
  end_s: number | null;
  events: Array<{ id: string; started_s: number | null; done_s: number | null; executions: number }>;
  criteria: Array<{ name: string; kind: string; verdict: Verdict; value: number | string | null; limit: number | null; unit: string; at_s: number | null; detail: string }>;
  /**
   * a served attempt with a real car: every data-quality gate over the judged window (absent where nothing is
   * gated: headless runs); status is invalid once one failed and the attempt ended passed or failed
   */
  quality?: GateResult[];
  /** what the criteria alone said of an invalid attempt (passed or failed), for the record: never its verdict */
  criteria_said?: 'passed' | 'failed';
}
