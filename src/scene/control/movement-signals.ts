/**
 * The signal state of every movement for the step, as one byte each in the rule layer's global movement order: the
 * rules test it per vehicle and per conflict many times a step, so it is read off the controller once, up front.
 */
import type { SignalController } from './controller.js';
import type { TrafficLayout } from './layout.js';
import type { MovementIndex } from './movement-index.js';
import { movementStates, type MovementState } from './movement-states.js';

/** a movement's state code (0: the junction has no signals) */
export const GREEN = 'G'.charCodeAt(0);
export const GREEN_YIELD = 'g'.charCodeAt(0);
export const YELLOW = 'y'.charCodeAt(0);
export const RED = 'r'.charCodeAt(0);
export const OFF = 'o'.charCodeAt(0);

export class MovementSignals {
  /** per movement, this step: its state code and whether it gives way (a permissive green) */
  readonly code: Uint8Array;
  readonly yields: Uint8Array;
  private readonly msBuf: MovementState[][];

  constructor(private readonly layout: TrafficLayout, private readonly index: MovementIndex) {
    const total = index.base[layout.junctions.length];
    this.code = new Uint8Array(total);
    this.yields = new Uint8Array(total);
    this.msBuf = layout.junctions.map((cj) => cj.movements.map((): MovementState => ({ code: 'r', yields: false })));
  }

  /** Reads every movement's state off the controller (after its update for the step). */
  update(controller: SignalController): void {
    const J = this.layout.junctions;
    for (let j = 0; j < J.length; j++) {
      const cj = J[j];
      const b = this.index.base[j];
      if (cj.control !== 'signal') {
        for (let m = 0; m < cj.movements.length; m++) {
          this.code[b + m] = 0;
          this.yields[b + m] = 0;
        }
        continue;
      }
      const ms = movementStates(cj, this.layout.groups, controller.junctionStates(cj), this.msBuf[j]);
      for (let m = 0; m < ms.length; m++) {
        this.code[b + m] = ms[m].code.charCodeAt(0);
        this.yields[b + m] = ms[m].yields ? 1 : 0;
      }
    }
  }
}
