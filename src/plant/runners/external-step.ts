/** External-step mode: the caller owns the loop and ticks the session (deterministic co-simulation, batch). */
import type { SimSession } from '../session.js';
import type { DriverCommand } from '../types.js';

export class ExternalStepRunner {
  constructor(
    readonly session: SimSession,
    readonly dt = session.nominalDt,
  ) {
    if (!(dt > 0)) throw new RangeError(`dt must be > 0, got ${dt}`);
  }

  /** Optionally latches `cmd`, then advances one tick (of `dt`, or the runner's dt). */
  step(cmd?: Readonly<Partial<DriverCommand>>, dt = this.dt): void {
    if (cmd) this.session.setInput(cmd);
    this.session.tick(dt);
  }

  /** Advances `ticks` ticks; `control` (if given) supplies the command from the sim time before each tick. */
  run(ticks: number, control?: (simTime: number) => Readonly<Partial<DriverCommand>> | undefined): void {
    for (let k = 0; k < ticks; k++) {
      const cmd = control?.(this.session.simTime);
      this.step(cmd);
    }
  }
}
