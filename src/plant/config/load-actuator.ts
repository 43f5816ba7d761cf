/**
 * Loads ActuatorParams. VDSim has no file format for it; this port uses the struct's member names as nested
 * maps:
 *   steer:    { dead_time_s, tau_s, rate_limit, out_min, out_max, inertia, servo_kp, servo_kd,
 *               friction: { enabled, sigma0, sigma1, sigma2, Tc, Ts, ws } }
 *   throttle: { dead_time_s, tau_s, rate_limit, dead_zone, out_min, out_max }
 *   brake:    { ...throttle keys, thermal_enabled, heat_coeff, cool_coeff, T_ambient, mu_T_temp: [], mu_T_scale: [] }
 */
import { type ActuatorParams, actuatorParams } from '../params/actuator.js';
import { ConfigError } from './errors.js';
import { type ReadContext, childContext, readFields, subMap } from './fields.js';
import { type LoadOptions, type LoadResult, openParamsDocument } from './document.js';
import { BRAKE_ACTUATOR_FIELDS, CHANNEL_FIELDS, STEER_FRICTION_FIELDS, STEER_SERVO_FIELDS } from './schemas.js';

export function parseActuatorParams(map: Record<string, unknown>, ctx: ReadContext): ActuatorParams {
  const p = actuatorParams();
  for (const key of Object.keys(map)) {
    if (!['steer', 'throttle', 'brake'].includes(key)) ctx.warnings.push(`${ctx.file}: unknown key '${key}' ignored`);
  }
  const steer = subMap(map, 'steer', ctx);
  if (steer) {
    const sctx = childContext(ctx, 'steer');
    readFields(steer, p.steer, STEER_SERVO_FIELDS, sctx, new Set(['friction']));
    const friction = subMap(steer, 'friction', sctx);
    if (friction) readFields(friction, p.steer.friction, STEER_FRICTION_FIELDS, childContext(sctx, 'friction'));
  }
  const throttle = subMap(map, 'throttle', ctx);
  if (throttle) readFields(throttle, p.throttle, CHANNEL_FIELDS, childContext(ctx, 'throttle'));
  const brake = subMap(map, 'brake', ctx);
  if (brake) readFields(brake, p.brake, BRAKE_ACTUATOR_FIELDS, childContext(ctx, 'brake'));
  if (p.brake.muTempC.length !== p.brake.muScale.length) {
    throw new ConfigError(ctx.file, 'brake.mu_T_scale', `must have as many entries as brake.mu_T_temp (${p.brake.muTempC.length})`);
  }
  for (let i = 1; i < p.brake.muTempC.length; i++) {
    if (!(p.brake.muTempC[i] > p.brake.muTempC[i - 1])) throw new ConfigError(ctx.file, 'brake.mu_T_temp', 'breakpoints must be strictly ascending');
  }
  return p;
}

export function loadActuatorParams(path: string, opts: LoadOptions = {}): LoadResult<ActuatorParams> {
  const doc = openParamsDocument(path, 'actuator', opts);
  const ctx: ReadContext = { file: path, prefix: '', warnings: doc.warnings };
  return { params: parseActuatorParams(doc.body as Record<string, unknown>, ctx), warnings: doc.warnings, source: doc.source, metadata: {} };
}
