/**
 * `json`: a vehicle's state as one line of JSON with VDSim's fixed key order and precisions
 * (comms_templates.hpp encode_state_json): {"id","t" %.3f,"x","y" %.2f,"yaw" %.4f,"vx","vy" %.2f,"r" %.4f,
 * "ax","ay" %.2f,"Fz" [%.0f×4],"alpha" [%.4f×4],"kappa" [%.4f×4]}; non-finite numbers are null; a frame of
 * 512 bytes or more is dropped. `t` is the STATE timestamp (server monotonic seconds). VDSim's Python router
 * sends `json.dumps` of a dict instead; this follows the C++ server.
 */
import { jsonFixed } from '../../format.js';
import { SI } from '../../vds1.js';
import { registerTemplate, writeText } from './registry.js';

function quad(v: Float64Array, at: number, digits: number): string {
  return `${jsonFixed(v[at], digits)},${jsonFixed(v[at + 1], digits)},${jsonFixed(v[at + 2], digits)},${jsonFixed(v[at + 3], digits)}`;
}

export function stateJson(id: number, t: number, v: Float64Array): string {
  return (
    `{"id":${id >>> 0},"t":${jsonFixed(t, 3)},"x":${jsonFixed(v[SI.x], 2)},"y":${jsonFixed(v[SI.y], 2)},"yaw":${jsonFixed(v[SI.yaw], 4)},` +
    `"vx":${jsonFixed(v[SI.vx], 2)},"vy":${jsonFixed(v[SI.vy], 2)},"r":${jsonFixed(v[SI.yawRate], 4)},"ax":${jsonFixed(v[SI.ax], 2)},"ay":${jsonFixed(v[SI.ay], 2)},` +
    `"Fz":[${quad(v, SI.Fz, 0)}],"alpha":[${quad(v, SI.slipAngle, 4)}],"kappa":[${quad(v, SI.slipRatio, 4)}]}`
  );
}

registerTemplate({
  name: 'json',
  summary: "one-line JSON state (VDSim's C++ key order and precisions)",
  tx: {
    sources: ['state'],
    encode: (ctx, out) => writeText(stateJson(ctx.vehicle.id, ctx.timestamp, ctx.vehicle.frame.v), out, 511),
  },
});
