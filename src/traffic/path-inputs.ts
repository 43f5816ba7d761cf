/**
 * What one vehicle's lane path ahead is made from (MotionPredictor.lanePath, and the curve limit and path
 * directions made from the path): its pose, whether it reverses, its kind and goal, its planned lanes and place
 * on them, and the length sampled (from its speed: 60 m below 13 m/s). The lane network never changes, so the
 * path is a pure function of these: a vehicle whose inputs are the same, bit for bit, as when its path was last
 * sampled has that path still. A vehicle standing still (38 % of vehicle-steps on the demo track at 63 NPCs,
 * 31 % on FMTC: queues at red lights) keeps its path, its curve limit and the directions already computed; its
 * poses are predicted afresh (its speed, decaying to zero through the float32 velocity, changes them in the
 * last bits). Comparisons are Object.is's (−0 is not 0; NaN is never the same: sampled afresh).
 */
import type { World } from './world.js';

/** values kept per slot: x, y, yaw, goalX, goalY, kind, plan s, plan count, reversing, length */
const F = 10;

export interface PlanInputs {
  readonly planLanes: Int32Array;
  readonly planCount: Int32Array;
  readonly planS: Float32Array;
}

export class PathInputs {
  private readonly values: Float64Array;
  private readonly lanes: Int32Array;
  /** per slot: 1 while its values describe the path in the predictor's arrays */
  private readonly valid: Uint8Array;

  constructor(capacity: number, private readonly maxPlan: number) {
    this.values = new Float64Array(capacity * F);
    this.lanes = new Int32Array(capacity * maxPlan);
    this.valid = new Uint8Array(capacity);
  }

  /** Forgets every slot's inputs (the settings the curve limits were made with changed). */
  clear(): void {
    this.valid.fill(0);
  }

  /**
   * Are slot j's inputs now those its path was last sampled from? Either way they are kept as the inputs of the
   * path the caller samples (when not) or keeps (when so).
   */
  unchanged(world: World, j: number, plans: PlanInputs, reversing: boolean, length: number): boolean {
    const v = this.values, o = j * F;
    const count = plans.planCount[j];
    let same = this.valid[j] === 1;
    same = keep(v, o, world.x[j], same);
    same = keep(v, o + 1, world.y[j], same);
    same = keep(v, o + 2, world.yaw[j], same);
    same = keep(v, o + 3, world.goalX[j], same);
    same = keep(v, o + 4, world.goalY[j], same);
    same = keep(v, o + 5, world.kind[j], same);
    same = keep(v, o + 6, plans.planS[j], same);
    same = keep(v, o + 7, count, same);
    same = keep(v, o + 8, reversing ? 1 : 0, same);
    same = keep(v, o + 9, length, same);
    const b = j * this.maxPlan;
    for (let k = 0; k < count && k < this.maxPlan; k++) {
      if (this.lanes[b + k] !== plans.planLanes[b + k]) {
        same = false;
        this.lanes[b + k] = plans.planLanes[b + k];
      }
    }
    this.valid[j] = 1;
    return same;
  }
}

/** Stores `x` at v[i]; is it (and were the values before) the same as what was there? */
function keep(v: Float64Array, i: number, x: number, same: boolean): boolean {
  const was = v[i];
  v[i] = x;
  return same && was === x && (x !== 0 || 1 / was === 1 / x);
}
