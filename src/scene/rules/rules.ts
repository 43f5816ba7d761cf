/**
 * The traffic rules live NPCs obey at junctions: a rule layer over the policy, like the shield (`vils eval` never
 * has it). Before each policy step it finds, for every vehicle (NPCs along their planned lanes, egos along the
 * straightest lanes ahead), the junction movement it is approaching or driving, and decides for each NPC whether
 * it may pass its next stop line:
 *
 * - signals: red → stop at the line; yellow → stop where that takes at most YELLOW_DECEL (decided once per
 *   yellow), else go on; green → go; a left turn in a permissive phase gives way to the oncoming traffic;
 * - stop signs (all-way or on minor approaches): a full stop (≤ 0.1 m/s) at the line first, then at an all-way
 *   stop the approaches in the order their vehicles stopped, else giving way to the major road;
 * - yield signs and uncontrolled junctions: giving way by priority (sign, class of the approach, the right-hand
 *   rule; see layout.ts);
 * - always: no entry while a vehicle that entered a conflicting movement (an ego standing in the junction too)
 *   will still be in the way, and never unless the exit has room for the whole vehicle.
 *
 * Giving way is a gap check: the NPC goes if every vehicle with priority on a conflicting movement reaches the
 * conflict zone after the NPC has cleared it (with GAP_S to spare) or leaves it before the NPC gets there. A stop
 * is written into the scene's StopConstraints, which the engine's step is handed (the governor brakes for it, the
 * shield never passes it); a rule
 * that would need more than COMMIT_DECEL to obey is not imposed on an NPC that was not already stopping for it
 * (it is committed), except a red light.
 *
 * The signals are read, never driven: their states per movement come in through the kit's MovementSignalStates
 * (the signal room's output for the step); the detectors' readings go out through its SignalDetection.
 */
import type { TrafficEngine } from '../../traffic/engine.js';
import type { LaneNetwork } from '../../traffic/lanes.js';
import { HoldReason, type HoldReasonId, type StopConstraints } from '../../traffic/stops.js';
import { GOVERNOR_STOP_MARGIN_M } from '../../traffic/tuning.js';
import { AgentKind, type World } from '../../traffic/world.js';
import { detectVehicles } from './detectors.js';
import { ExitRoom } from './exit-room.js';
import { OFF, RED, SignalDetection, YELLOW, type MovementSignalStates } from '../junction-kit/handoff.js';
import type { ControlledJunction, TrafficLayout } from '../junction-kit/layout.js';
import type { MovementIndex } from '../junction-kit/movement-index.js';
import { RightOfWay } from './right-of-way.js';
import { RuleMemory } from './rule-memory.js';
import {
  COMFORT_DECEL, COMMIT_DECEL, DECIDE_M, FULL_STOP_SPEED, HARD_DECEL, QUEUED_MPS, STOP_DWELL_S, STOP_ZONE_M, YELLOW_DECEL,
} from './rule-params.js';
import { VehiclePlaces } from './vehicle-places.js';

export { FULL_STOP_SPEED, YELLOW_DECEL } from './rule-params.js';

/**
 * The rule layer's step, in two halves around the signals' update (traffic-control.ts runs them): where every
 * vehicle is (locate: vehicle-places.ts) and what the detectors see (detect), then, with the signals' states of the
 * step, each NPC's stop (decide), which may ask for giving way (right-of-way.ts) and room past the exit
 * (exit-room.ts). The junction figures (metrics.ts) read the same places, signals and memory after the step.
 */
export class TrafficRules {
  /** the movements, numbered once */
  readonly index: MovementIndex;
  /** where each vehicle is this step */
  readonly places: VehiclePlaces;
  /** the movements' signal states this step (the signal room's output, read only) */
  readonly signals: MovementSignalStates;
  /** what the rules remember of each vehicle */
  readonly memory: RuleMemory;
  /** what the signals' detectors see this step */
  readonly detection: SignalDetection;
  private readonly rightOfWay: RightOfWay;
  private readonly exitRoom: ExitRoom;
  /** right turns on red after a full stop at the line, giving way to every movement that goes (Korean law) */
  rightOnRed = true;

  /**
   * `stops`: where each NPC must stop this step, the scene's (the rules fill it, the engine's step is handed it).
   * `index` and `signals`: the movements numbered once, and their signal states each step.
   */
  constructor(
    readonly layout: TrafficLayout, index: MovementIndex, signals: MovementSignalStates, lanes: LaneNetwork, readonly engine: TrafficEngine,
    readonly stops: StopConstraints,
  ) {
    this.detection = new SignalDetection(layout.groups.length);
    this.index = index;
    this.signals = signals;
    this.places = new VehiclePlaces(this.index, lanes, engine);
    this.memory = new RuleMemory(engine.world.capacity);
    this.rightOfWay = new RightOfWay(this.index, this.places, this.signals, this.memory, lanes, engine);
    this.exitRoom = new ExitRoom(this.index, this.places, this.signals, this.memory, this.rightOfWay, lanes, engine);
  }

  /** (the population asks these two where it may start an NPC: movement-index.ts answers) */
  vehicleInJunction(lane: number, s: number, length: number, width: number): boolean {
    return this.index.vehicleInJunction(lane, s, length, width);
  }

  distanceToLine(lanes: readonly number[], s0: number): number {
    return this.index.distanceToLine(lanes, s0);
  }

  junctionOf(mg: number): ControlledJunction {
    return this.index.junctionOf(mg);
  }

  /** Forgets every memo (a scene reset). */
  reset(): void {
    this.memory.reset();
  }

  /** The first half at simulation time t: clears the stops, and places every vehicle among the movements. */
  locate(t: number): void {
    const memory = this.memory;
    const places = this.places;
    memory.time = t;
    const engine = this.engine;
    const world = engine.world;
    this.stops.clear();
    places.clear();
    for (let s = 0; s < world.count; s++) {
      places.unplace(s);
      if (!world.present[s]) continue;
      if (world.kind[s] !== AgentKind.Controlled && world.kind[s] !== AgentKind.External) continue;
      if (memory.stale(s, world.id[s])) {
        memory.forget(s, world.id[s]);
        places.forget(s);
      }
      if (world.kind[s] === AgentKind.External && world.speed(s) > FULL_STOP_SPEED) memory.standSince[s] = -1;
      if (world.speed(s) >= QUEUED_MPS) memory.stillSince[s] = -1;
      else if (memory.stillSince[s] < 0) memory.stillSince[s] = t;
      places.locate(world, s);
      // a full stop counts for the line it was made at while the vehicle is before or in that movement, not the next time round
      const done = memory.stopDone[s];
      if (done >= 0 && !places.involves(s, done)) memory.stopDone[s] = -1;
      // … and so does a decision to go on (or stop) at a yellow: round again, a vehicle that went on at this line's
      // yellow last time came into the next yellow there still decided to go, and ran its red (FMTC)
      const memo = Math.abs(memory.yellowMemo[s]) - 1;
      if (memo >= 0 && !places.involves(s, memo)) memory.yellowMemo[s] = 0;
    }
  }

  /** What the signals' detectors see where the vehicles were placed (for an actuated plan: the others skip it). */
  detect(): SignalDetection {
    detectVehicles(this.engine.world, this.places, this.index, this.detection);
    return this.detection;
  }

  /** The second half, once the signals have their states of the step: every NPC's stop line. */
  decide(): void {
    const world = this.engine.world;
    for (let s = 0; s < world.count; s++) {
      if (!world.present[s] || world.kind[s] !== AgentKind.Controlled) continue;
      this.decideFor(world, s);
    }
  }

  /**
   * The stop (if any) NPC s must make: at the line of the movement it approaches, or of the one after it where the
   * two junctions are close (the NPC is decided for both at once, as a driver looks through the first junction to
   * the second); a stop at the second line that would leave it standing in the first is made at the first line.
   */
  private decideFor(world: World, s: number): void {
    const memory = this.memory;
    const { apMg, apD, ap2Mg, ap2D } = this.places;
    const half = 0.5 * world.length[s];
    const mg = apMg[s];
    if (mg >= 0 && this.rule(world, s, mg, apD[s], true)) {
      this.hold(s, mg, apD[s]);
      return;
    }
    const mg2 = ap2Mg[s];
    if (mg2 >= 0 && this.rule(world, s, mg2, ap2D[s], false)) {
      // standing at the second line, where would its rear be?
      const rear = ap2D[s] - GOVERNOR_STOP_MARGIN_M - 2 * half;
      if (mg >= 0 && rear < apD[s] + this.index.clear[mg]) {
        const v = world.speed(s);
        const dFront = apD[s] - half;
        const need = (v * v) / (2 * Math.max(dFront - GOVERNOR_STOP_MARGIN_M, 0.05));
        // too late to wait before the first junction: on into it (the second line is then the next one)
        if (need > COMMIT_DECEL && memory.heldMg[s] !== mg2 && this.ruleReason !== HoldReason.Red) {
          memory.heldMg[s] = -1;
          return;
        }
        this.hold(s, mg2, apD[s]);
        return;
      }
      this.hold(s, mg2, ap2D[s]);
      return;
    }
    memory.heldMg[s] = -1;
  }

  private ruleReason: HoldReasonId = HoldReason.None;
  private ruleDecel = COMFORT_DECEL;
  private ruleHoldFor = -1;

  private hold(s: number, mg: number, line: number): void {
    this.memory.heldMg[s] = mg;
    this.stops.set(s, line, this.ruleDecel, this.ruleReason, this.ruleHoldFor);
  }

  /**
   * Must NPC s stop before movement mg, whose entry lies `d` ahead of its centre? Sets ruleReason, ruleDecel and
   * ruleHoldFor. `first`: it is the next line ahead (the NPC may still be in the junction before it).
   */
  private rule(world: World, s: number, mg: number, d: number, first: boolean): boolean {
    const half = 0.5 * world.length[s];
    const dFront = d - half;
    const v = world.speed(s);
    const need = (v * v) / (2 * Math.max(dFront - GOVERNOR_STOP_MARGIN_M, 0.05));
    if (dFront > Math.max(DECIDE_M, (v * v) / (2 * COMFORT_DECEL) + 10)) return false;
    const memory = this.memory;
    const { inMg, inA } = this.places;
    const { refs, clear } = this.index;
    const { j, m } = refs[mg];
    const cj = this.layout.junctions[j];
    let reason: HoldReasonId = HoldReason.None;
    let holdFor = -1;
    let decel = COMFORT_DECEL;
    const code = this.signals.code[mg];
    const signal = cj.control === 'signal' && code !== 0 && code !== OFF;
    // still in the junction before this one, so close that stopping at this line would leave it standing in that
    // one: it gives way only to vehicles in the way, does not wait for room past the exit, and goes on at yellow
    const insideOther = first && inMg[s] >= 0 && refs[inMg[s]].j !== j && inA[s] + (dFront - GOVERNOR_STOP_MARGIN_M) - half < clear[inMg[s]];
    const redTurn = signal && code === RED && this.rightOnRed && cj.movements[m].turn === 'right';
    if (signal && code === RED && !redTurn) {
      if (need <= HARD_DECEL || memory.heldMg[s] === mg) reason = HoldReason.Red;
    } else if (signal && code === YELLOW) {
      let memo = memory.yellowMemo[s];
      if (Math.abs(memo) !== mg + 1) {
        memo = (memory.heldMg[s] === mg || need <= YELLOW_DECEL) && !insideOther ? -(mg + 1) : mg + 1;
        memory.yellowMemo[s] = memo;
      }
      if (memo < 0) {
        reason = HoldReason.Yellow;
        decel = YELLOW_DECEL;
      }
    } else {
      if (Math.abs(memory.yellowMemo[s]) === mg + 1) memory.yellowMemo[s] = 0;
      // stop signs: a full stop at the line first
      const approach = cj.approaches[cj.movements[m].approach];
      const mustStop = redTurn || (!signal && (cj.control === 'all_way_stop' || approach.sign === 'stop'));
      if (redTurn && need > HARD_DECEL && memory.heldMg[s] !== mg) {
        // too late to stop: it runs the red as any other movement would (and is counted)
      } else if (mustStop && memory.stopDone[s] !== mg) {
        reason = redTurn ? HoldReason.Red : HoldReason.StopSign;
        if (first && v <= FULL_STOP_SPEED && dFront <= STOP_ZONE_M) {
          if (memory.standSince[s] < 0) memory.standSince[s] = memory.time;
          if (memory.time - memory.standSince[s] >= STOP_DWELL_S - 1e-9) {
            memory.stopDone[s] = mg;
            memory.stopDoneT[s] = memory.standSince[s];
            reason = HoldReason.None;
          }
        } else memory.standSince[s] = -1;
      }
      if (reason === HoldReason.None) {
        const blocker = this.rightOfWay.giveWay(world, s, j, m, dFront, v, signal && !insideOther, cj.control === 'all_way_stop' && !signal && !insideOther, insideOther, redTurn);
        if (blocker !== -2) {
          reason = HoldReason.GiveWay;
          holdFor = blocker;
        } else if (!insideOther && first) {
          const box = this.exitRoom.exitBlocked(world, s, mg, dFront, v);
          if (box !== -2) {
            reason = HoldReason.Box;
            holdFor = box;
          }
        }
      }
      // committed: a rule that came too late to obey comfortably is not imposed (the shield still keeps it clear)
      if ((reason === HoldReason.GiveWay || reason === HoldReason.Box) && need > COMMIT_DECEL && memory.heldMg[s] !== mg) reason = HoldReason.None;
    }
    this.ruleReason = reason;
    this.ruleDecel = decel;
    this.ruleHoldFor = holdFor;
    return reason !== HoldReason.None;
  }
}
