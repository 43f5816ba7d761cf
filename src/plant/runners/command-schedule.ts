/**
 * A timed command schedule for replay: rows {t, steer, throttle, brake, gear, handbrake} with zero-order hold
 * (a row applies from its t until the next) or linear interpolation of steer/throttle/brake.
 */
import type { DriverCommand } from '../types.js';

export type ScheduleInterpolation = 'zoh' | 'linear';

export interface CommandRow {
  t: number;
  steer: number;
  throttle: number;
  brake: number;
  gear: number;
  handbrake: boolean;
}

export class CommandSchedule {
  readonly rows: readonly CommandRow[];
  readonly interpolation: ScheduleInterpolation;
  private cursor = 0;

  constructor(rows: readonly CommandRow[], interpolation: ScheduleInterpolation = 'zoh') {
    if (rows.length === 0) throw new RangeError('a command schedule needs at least one row');
    for (let i = 1; i < rows.length; i++) {
      if (!(rows[i].t > rows[i - 1].t)) throw new RangeError(`row ${i + 1}: times must increase (t = ${rows[i].t} after ${rows[i - 1].t})`);
    }
    this.rows = rows;
    this.interpolation = interpolation;
  }

  /** Time of the last row [s]. */
  get endTime(): number {
    return this.rows[this.rows.length - 1].t;
  }

  /** The command at time t [s] into `out`; before the first row the first row holds. O(1) for rising t. */
  commandAt(t: number, out: DriverCommand): DriverCommand {
    const rows = this.rows;
    if (this.cursor > 0 && rows[this.cursor].t > t) this.cursor = 0;
    while (this.cursor + 1 < rows.length && rows[this.cursor + 1].t <= t) this.cursor++;
    const a = rows[this.cursor];
    out.gear = a.gear;
    out.handbrake = a.handbrake;
    const b = this.cursor + 1 < rows.length ? rows[this.cursor + 1] : undefined;
    if (this.interpolation === 'linear' && b && t > a.t) {
      const f = (t - a.t) / (b.t - a.t);
      out.steer = a.steer + f * (b.steer - a.steer);
      out.throttle = a.throttle + f * (b.throttle - a.throttle);
      out.brake = a.brake + f * (b.brake - a.brake);
    } else {
      out.steer = a.steer;
      out.throttle = a.throttle;
      out.brake = a.brake;
    }
    return out;
  }
}
