/**
 * Where each NPC must stop in the coming step: a red light, a stop sign, giving way, a junction whose exit is
 * full. The live scene owns one set; its rules (src/scene/rules) write one line per NPC before a step, and the scene
 * hands the set to the engine's step (prepare, apply), which keeps the
 * NPC's front behind it three ways: the speed governor brakes for it smoothly (constant deceleration from where
 * that reaches `decel`, stopping GOVERNOR_STOP_MARGIN_M short of the line), the safety shield refuses any control after
 * which the front could pass the line even braking at its continuation deceleration, and other NPCs' motion
 * prediction stops it there (a car waiting at a red does not block the crossing traffic's checks).
 * `vils eval` never has any: GPUDrive's rules are untouched.
 */
import { ACCEL_VALUES } from '../policy/actions.js';
import { STEP_DT } from './bicycle.js';
import { GOVERNOR_STOP_MARGIN_M, GOVERNOR_TAU_S } from './tuning.js';

const HARDEST = -ACCEL_VALUES[0];

/** Why an NPC is held (HoldReason) — for the inspector and the figures. */
export const HoldReason = {
  None: 0,
  Red: 1,
  Yellow: 2,
  StopSign: 3,
  GiveWay: 4,
  Box: 5,
  /** a person on, or about to step onto, a crosswalk in its path (src/scene/people/give-way.ts) */
  Crosswalk: 6,
} as const;
export type HoldReasonId = (typeof HoldReason)[keyof typeof HoldReason];
export const HOLD_REASON_NAMES = ['none', 'red', 'yellow', 'stop_sign', 'give_way', 'box', 'crosswalk'] as const;

export class StopConstraints {
  /** per slot: distance along its lane path, from its centre's projection, to the line its front must not pass (Infinity: none) [m] */
  readonly line: Float32Array;
  /** per slot: the deceleration at which it starts braking for the line [m/s²] */
  readonly decel: Float32Array;
  /** per slot: HoldReason */
  readonly reason: Uint8Array;
  /** per slot: the vehicle (slot) it gives way to or waits behind, −1 when none */
  readonly holdFor: Int32Array;

  constructor(capacity: number) {
    this.line = new Float32Array(capacity).fill(Infinity);
    this.decel = new Float32Array(capacity).fill(2);
    this.reason = new Uint8Array(capacity);
    this.holdFor = new Int32Array(capacity).fill(-1);
  }

  clear(): void {
    this.line.fill(Infinity);
    this.reason.fill(0);
    this.holdFor.fill(-1);
  }

  set(slot: number, line: number, decel: number, reason: HoldReasonId, holdFor = -1): void {
    this.line[slot] = line;
    this.decel[slot] = decel;
    this.reason[slot] = reason;
    this.holdFor[slot] = holdFor;
  }

  /**
   * The highest acceleration that still stops the front GOVERNOR_STOP_MARGIN_M short of the line: none (Infinity) until
   * stopping there needs `decel`, then exactly the deceleration that stops there; at the stopping point, no
   * motion; short of it at rest, a creep up to it.
   */
  accelLimit(slot: number, speed: number, halfLength: number): number {
    const line = this.line[slot];
    if (!(line < Infinity)) return Infinity;
    const gap = line - halfLength - GOVERNOR_STOP_MARGIN_M;
    if (gap <= 0.02) return Math.max(-HARDEST, -speed / STEP_DT);
    const need = (speed * speed) / (2 * gap);
    const b = this.decel[slot];
    if (need >= b) return Math.max(-HARDEST, -need);
    return (Math.sqrt(2 * b * gap) - speed) / GOVERNOR_TAU_S;
  }
}
