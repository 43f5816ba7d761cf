/**
 * The signal room's output for the step: the state of every movement as one byte each in the movement index's
 * global order (the rules test it per vehicle and per conflict many times a step, so it is read off the controller
 * once, up front), and the groups' states and time to change, asked of the controller as the rules need them. The
 * rules read it through the kit's MovementSignalStates and never see the controller.
 */
import type { GroupStateCode, MovementSignalStates } from '../junction-kit/handoff.js';
import type { TrafficLayout } from '../junction-kit/layout.js';
import type { MovementIndex } from '../junction-kit/movement-index.js';
import type { SignalController } from './controller.js';
import { movementStates, type MovementState } from './movement-states.js';

export class MovementSignals implements MovementSignalStates {
  readonly code: Uint8Array;
  readonly yields: Uint8Array;
  private readonly msBuf: MovementState[][];

  constructor(private readonly layout: TrafficLayout, private readonly index: MovementIndex, private readonly controller: SignalController) {
    const total = index.base[layout.junctions.length];
    this.code = new Uint8Array(total);
    this.yields = new Uint8Array(total);
    this.msBuf = layout.junctions.map((cj) => cj.movements.map((): MovementState => ({ code: 'r', yields: false })));
  }

  timeToChange(group: number): number {
    return this.controller.timeToChange(group);
  }

  groupCode(group: number): GroupStateCode {
    return this.controller.code(group);
  }

  /** Reads every movement's state off the controller (after its update for the step). */
  update(): void {
    const J = this.layout.junctions;
    const controller = this.controller;
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
