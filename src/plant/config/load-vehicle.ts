/** Loads VehicleParams from a flat VDSim vehicle file or a vehicle catalog part (chassis/body/aero/...). */
import { type VehicleParams, vehicleParams } from '../params/vehicle.js';
import { ConfigError } from './errors.js';
import { type ReadContext, readFields } from './fields.js';
import { type LoadOptions, type LoadResult, openParamsDocument } from './document.js';
import { VEHICLE_FIELDS, VEHICLE_METADATA_KEYS } from './schemas.js';
import { isRecord } from './yaml-file.js';

/** Parses a vehicle map (already unwrapped) onto the defaults. */
export function parseVehicleParams(map: Record<string, unknown>, ctx: ReadContext, metadata: Record<string, unknown> = {}): VehicleParams {
  const p = vehicleParams();
  const handled = new Set([...VEHICLE_METADATA_KEYS, 'powertrain']);
  readFields(map, p, VEHICLE_FIELDS, ctx, handled);
  for (const k of VEHICLE_METADATA_KEYS) if (k in map) metadata[k] = map[k];
  if (map.powertrain !== undefined && map.powertrain !== null) {
    if (!isRecord(map.powertrain)) throw new ConfigError(ctx.file, 'powertrain', 'expected a map');
    ctx.warnings.push(`${ctx.file}: 'powertrain' (engine map + gearbox) is not simulated by this port; the flat drive torque throttle·max_motor_torque·final_drive_ratio is used`);
  }
  if (p.steeringDynamic) {
    ctx.warnings.push(`${ctx.file}: 'steering_dynamic: true' (rack EOM) is not simulated by this port; the road-wheel angle follows the command`);
  }
  const sum = p.cgToFront + p.cgToRear;
  if (Math.abs(sum - p.wheelbase) > 1e-6 * Math.max(1, p.wheelbase)) {
    ctx.warnings.push(`${ctx.file}: cg_to_front + cg_to_rear (${sum}) != wheelbase (${p.wheelbase})`);
  }
  if (p.massSprung > p.mass) ctx.warnings.push(`${ctx.file}: mass_sprung (${p.massSprung}) exceeds mass (${p.mass})`);
  return p;
}

export function loadVehicleParams(path: string, opts: LoadOptions = {}): LoadResult<VehicleParams> {
  const doc = openParamsDocument(path, 'vehicle', opts);
  const ctx: ReadContext = { file: path, prefix: doc.source.part ? 'body' : '', warnings: doc.warnings };
  const metadata: Record<string, unknown> = {};
  const params = parseVehicleParams(doc.body as Record<string, unknown>, ctx, metadata);
  return { params, warnings: doc.warnings, source: doc.source, metadata };
}
