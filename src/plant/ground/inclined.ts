/**
 * Inclined plane: height z0 + tan(grade)·x + tan(bank)·y, normal (−tan grade, −tan bank, 1) normalised.
 * grade > 0 rises toward +x (uphill when heading east), bank > 0 rises toward +y (left). road_dz is each
 * contact's height relative to the plane under the CG, which drives the L3 unsprung masses.
 */
import type { ContactSet } from '../contact.js';
import type { VehicleParams } from '../params/vehicle.js';
import type { VehicleState } from '../state.js';
import { type GroundProvider, hubPenetration, wheelCentres } from './ground.js';

export class InclinedGround implements GroundProvider {
  readonly name = 'inclined';
  private readonly hubs = new Float64Array(12);
  private readonly sx: number;
  private readonly sy: number;
  private readonly nx: number;
  private readonly ny: number;
  private readonly nz: number;

  /** grade and bank [rad]. */
  constructor(
    readonly grade: number,
    readonly bank: number,
    readonly mu = 1,
    readonly z0 = 0,
  ) {
    this.sx = Math.tan(grade);
    this.sy = Math.tan(bank);
    const n = Math.hypot(this.sx, this.sy, 1);
    this.nx = -this.sx / n;
    this.ny = -this.sy / n;
    this.nz = 1 / n;
  }

  heightAt(x: number, y: number): number {
    return this.z0 + this.sx * x + this.sy * y;
  }

  query(state: Readonly<VehicleState>, vp: Readonly<VehicleParams>, out: ContactSet): void {
    wheelCentres(state, vp, this.hubs);
    const h = this.hubs;
    const zCg = this.heightAt(state.x, state.y);
    for (let i = 0; i < 4; i++) {
      const x = h[3 * i];
      const y = h[3 * i + 1];
      const z = this.heightAt(x, y);
      out.setPoint(i, this.nx, this.ny, this.nz, this.mu, this.mu);
      out.position[3 * i] = x;
      out.position[3 * i + 1] = y;
      out.position[3 * i + 2] = z;
      out.penetration[i] = hubPenetration(x, y, h[3 * i + 2], x, y, z, this.nx, this.ny, this.nz, vp.wheelRadiusNominal);
      out.roadDz[i] = z - zCg;
    }
  }
}
