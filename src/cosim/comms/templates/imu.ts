/**
 * `imu`: a raw little-endian IMU struct (VDSim's design lists a "raw IMU struct" template; its C++ router has
 * none). 76 bytes, measured channels of the sensor model (identity when noise is off), CRC like VDS1:
 *
 *   off  type  field
 *    0   u32   magic 0x31554D49 (bytes "IMU1")
 *    4   u16   layout version = 1
 *    6   u16   reserved = 0
 *    8   u32   seq (the server's shared frame counter)
 *   12   u32   vehicle_id
 *   16   f64   timestamp [s] (server monotonic time at the tick, as in STATE)
 *   24   f64   ax   specific force, body x [m/s²]
 *   32   f64   ay   body y [m/s²]
 *   40   f64   az   body z [m/s²] (≈ +9.81 at rest)
 *   48   f64   wx   roll rate [rad/s]
 *   56   f64   wy   pitch rate [rad/s]
 *   64   f64   wz   yaw rate [rad/s]
 *   72   u32   crc32 (zlib) over bytes [0, 72)
 */
import { crc32Int } from '../../crc32.js';
import { viewOf } from '../../vds1.js';
import { registerTemplate } from './registry.js';

export const IMU_MAGIC = 0x31554d49;
export const IMU_BYTES = 76;

registerTemplate({
  name: 'imu',
  summary: 'raw IMU struct (76 B: header, ax ay az wx wy wz f64, CRC-32); see docs/co-simulation.md for the layout',
  tx: {
    sources: ['state', 'sensor'],
    sensorTypes: ['imu', 'imu_accel', 'imu_gyro'],
    encode(ctx, out) {
      if (out.length < IMU_BYTES) return -1;
      const s = ctx.vehicle.sensors;
      const dv = viewOf(out);
      const b = out.byteOffset;
      dv.setUint32(b, IMU_MAGIC, true);
      dv.setUint16(b + 4, 1, true);
      dv.setUint16(b + 6, 0, true);
      dv.setUint32(b + 8, ctx.seq, true);
      dv.setUint32(b + 12, ctx.vehicle.id, true);
      dv.setFloat64(b + 16, ctx.timestamp, true);
      dv.setFloat64(b + 24, s.ax, true);
      dv.setFloat64(b + 32, s.ay, true);
      dv.setFloat64(b + 40, s.az, true);
      dv.setFloat64(b + 48, s.wx, true);
      dv.setFloat64(b + 56, s.wy, true);
      dv.setFloat64(b + 64, s.wz, true);
      dv.setInt32(b + 72, crc32Int(out, 0, 72), true);
      return IMU_BYTES;
    },
  },
});
