/** Model factory by fidelity level. */
import type { SolverParams } from '../params/solver.js';
import type { TireParams, TireSetup } from '../params/tire.js';
import { tireSetup } from '../params/tire.js';
import type { VehicleParams } from '../params/vehicle.js';
import type { Level } from '../types.js';
import { BicycleModel } from './bicycle.js';
import { FourteenDofModel } from './fourteen-dof.js';
import type { VehicleModel } from './model.js';
import { SevenDofModel } from './seven-dof.js';

export function createVehicleModel(level: Level, vp: Readonly<VehicleParams>, tires: TireSetup | Readonly<TireParams>, sp: Readonly<SolverParams>): VehicleModel {
  const setup: TireSetup = Array.isArray(tires) ? (tires as TireSetup) : tireSetup(tires as TireParams);
  switch (level) {
    case 'L1':
      return new BicycleModel(vp, setup, sp);
    case 'L2':
      return new SevenDofModel(vp, setup, sp);
    case 'L3':
      return new FourteenDofModel(vp, setup, sp);
  }
}
