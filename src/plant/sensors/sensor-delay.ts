/**
 * Feedback-path delay (port of VDSim SensorDelay): whole states are buffered and the one round(delay/dt)
 * samples old is returned, without interpolation; before the buffer fills, the oldest state held.
 */
import { VehicleState } from '../state.js';

export class SensorDelay {
  private readonly delayS: number;
  private ring: VehicleState[];
  private head = 0;
  private count = 0;

  constructor(delayS: number, nominalDt = 0.005) {
    this.delayS = Math.max(0, delayS);
    const dt = nominalDt > 1e-6 ? nominalDt : 0.005;
    this.ring = this.allocate(this.delayS > 0 ? Math.round(this.delayS / dt) + 2 : 1);
  }

  private allocate(n: number): VehicleState[] {
    return Array.from({ length: n }, () => new VehicleState());
  }

  /** Empties the buffer and holds `s`. */
  reset(s: Readonly<VehicleState>): void {
    this.ring[0].copyFrom(s);
    this.head = 0;
    this.count = 1;
  }

  /** Pushes `next` and copies the delayed state into `out`. */
  apply(next: Readonly<VehicleState>, dt: number, out: VehicleState): VehicleState {
    if (this.delayS <= 0 || !(dt > 0)) return out.copyFrom(next);
    const n = Math.round(this.delayS / dt);
    if (this.ring.length < n + 2) {
      // a shorter tick than the nominal one needs more history: grow once, keeping the order
      const grown = this.allocate(n + 2);
      for (let k = 0; k < this.count; k++) grown[this.count - 1 - k].copyFrom(this.ring[(this.head - k + this.ring.length) % this.ring.length]);
      this.ring = grown;
      this.head = this.count - 1;
    }
    this.head = (this.head + 1) % this.ring.length;
    this.ring[this.head].copyFrom(next);
    this.count = Math.min(this.count + 1, n + 2, this.ring.length);
    const back = Math.min(n, this.count - 1);
    return out.copyFrom(this.ring[(this.head - back + this.ring.length) % this.ring.length]);
  }
}
