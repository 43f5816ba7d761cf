/**
 * Split-μ flat ground: a wheel whose contact lies at world y ≥ boundaryY (left, ISO 8855) gets μ_left, the
 * others μ_right (surface id 0 / 1).
 */
import type { ContactSet } from '../contact.js';
import type { VehicleParams } from '../params/vehicle.js';
import type { VehicleState } from '../state.js';
import { type GroundProvider, hubPenetration, wheelCentres } from './ground.js';

export class SplitMuGround implements GroundProvider {
  readonly name = 'split-mu';
  private readonly hubs = new Float64Array(12);

  constructor(
    readonly muLeft: number,
    readonly muRight: number,
    readonly boundaryY = 0,
    readonly z0 = 0,
  ) {}

  query(state: Readonly<VehicleState>, vp: Readonly<VehicleParams>, out: ContactSet): void {
    wheelCentres(state, vp, this.hubs);
    const h = this.hubs;
    for (let i = 0; i < 4; i++) {
      const left = h[3 * i + 1] >= this.boundaryY;
      const mu = left ? this.muLeft : this.muRight;
      out.setPoint(i, 0, 0, 1, mu, mu);
      out.surfaceId[i] = left ? 0 : 1;
      out.position[3 * i] = h[3 * i];
      out.position[3 * i + 1] = h[3 * i + 1];
      out.position[3 * i + 2] = this.z0;
      out.penetration[i] = hubPenetration(h[3 * i], h[3 * i + 1], h[3 * i + 2], h[3 * i], h[3 * i + 1], this.z0, 0, 0, 1, vp.wheelRadiusNominal);
    }
  }
}
