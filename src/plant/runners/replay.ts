/** Replay mode: a command schedule drives the session; before each tick the command at the sim time is latched. */
import type { SimSession } from '../session.js';
import { neutralCommand } from '../types.js';
import type { CommandSchedule } from './command-schedule.js';

export interface ReplayOptions {
  /** Tick [s] (default: the session's nominal dt). */
  dt?: number;
  /** Sim time to run to [s] (default: the schedule's last row). */
  durationS?: number;
  onTick?: (session: SimSession) => void;
}

/** Runs the schedule; returns the number of ticks. */
export function runReplay(session: SimSession, schedule: CommandSchedule, opts: ReplayOptions = {}): number {
  const dt = opts.dt ?? session.nominalDt;
  if (!(dt > 0)) throw new RangeError(`dt must be > 0, got ${dt}`);
  const duration = opts.durationS ?? schedule.endTime;
  const ticks = Math.round(duration / dt);
  const cmd = neutralCommand();
  const t0 = session.simTime;
  for (let k = 0; k < ticks; k++) {
    session.setInput(schedule.commandAt(session.simTime - t0, cmd));
    session.tick(dt);
    opts.onTick?.(session);
  }
  return ticks;
}
