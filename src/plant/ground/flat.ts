/** Flat ground at height z0 with uniform friction μ. */
import type { ContactSet } from '../contact.js';
import type { VehicleParams } from '../params/vehicle.js';
import type { VehicleState } from '../state.js';
import { type GroundProvider, hubPenetration, wheelCentres } from './ground.js';

export class FlatGround implements GroundProvider {
  readonly name = 'flat';
  private readonly hubs = new Float64Array(12);

  constructor(
    readonly mu = 1,
    readonly z0 = 0,
  ) {}

  query(state: Readonly<VehicleState>, vp: Readonly<VehicleParams>, out: ContactSet): void {
    wheelCentres(state, vp, this.hubs);
    const h = this.hubs;
    for (let i = 0; i < 4; i++) {
      out.setPoint(i, 0, 0, 1, this.mu, this.mu);
      out.position[3 * i] = h[3 * i];
      out.position[3 * i + 1] = h[3 * i + 1];
      out.position[3 * i + 2] = this.z0;
      out.penetration[i] = hubPenetration(h[3 * i], h[3 * i + 1], h[3 * i + 2], h[3 * i], h[3 * i + 1], this.z0, 0, 0, 1, vp.wheelRadiusNominal);
    }
  }
}
