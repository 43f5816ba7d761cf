/**
 * What the scripted actors do once the attempt is over (story.after_end). The record is closed at the end,
 * but served live the scene runs on, and an actor vanishing from it in the step of the verdict is a car
 * disappearing a metre in front of the test vehicle: so the actors carry on, and the host takes each out only
 * once it is far from the vehicle under test (story.remove_beyond_m), at a reset or at the next arm.
 *
 * - continue: the script goes on as it was (running speed, lane change and time-gap actions run to their end);
 * - stop: each brakes to a standstill in its lane at a moderate rate (a lane change under way still lands);
 * - leave: each drives on along the road at its lane's speed limit (its present speed where the map gives none),
 *   easing to it, and to the next lane's as it moves on; a person (pedestrian, cyclist) goes on at its own pace.
 */
import type { LaneNetwork } from '../../traffic/lanes.js';
import type { ScriptedActor } from './motion.js';
import type { AfterEnd } from './spec.js';

/** stop: a firm but ordinary stop, not an emergency one [m/s²] */
export const AFTER_END_STOP_MPS2 = 3;
/** leave: how fast it takes up its lane's speed [m/s²] */
export const AFTER_END_LEAVE_MPS2 = 2;

export class AfterEndMotion {
  /** leave: the lane each actor's speed was last set for (−1: none yet) */
  private readonly laneSet: Int32Array;

  constructor(private readonly mode: AfterEnd, private readonly actors: readonly ScriptedActor[], private readonly net: LaneNetwork) {
    this.laneSet = new Int32Array(actors.length).fill(-1);
  }

  /** At the end (t): the scripted actors take up their after-end motion. */
  begin(t: number): void {
    if (this.mode === 'continue') return;
    this.actors.forEach((a, i) => {
      if (a.controller !== 'script') return;
      a.endLon();
      if (this.mode === 'stop') a.startProfile(t, 0, AFTER_END_STOP_MPS2, null, 'linear');
      else this.leave(a, i, t);
    });
  }

  /** Each step after the end (t): leaving actors take up the speed of the lane they are on now. */
  step(t: number): void {
    if (this.mode !== 'leave') return;
    this.actors.forEach((a, i) => {
      if (a.controller === 'script' && a.lane !== this.laneSet[i]) this.leave(a, i, t);
    });
  }

  private leave(a: ScriptedActor, i: number, t: number): void {
    this.laneSet[i] = a.lane;
    // a lane's speed limit is a car's: a person walks (or rides) on as it was
    if (a.kind !== 'vehicle') return;
    const limit = a.lane >= 0 ? this.net.lanes[a.lane].speedLimit : NaN;
    if (Number.isFinite(limit)) a.startProfile(t, limit, AFTER_END_LEAVE_MPS2, null, 'linear');
  }
}
