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
import { crc32 } from '../../crc32.js';
import { registerTemplate } from './registry.js';

export const IMU_MAGIC = 0x31554d49;
export const IMU_BYTES = 76;

registerTemplate({
  name: 'imu',
  summary: 'raw IMU struct (76 B: header, ax ay az wx wy wz f64, CRC-32); see the README for the layout',
  tx: {
    sources: ['state', 'sensor'],
    sensorTypes: ['imu', 'imu_accel', 'imu_gyro'],
    encode(ctx, out) {
      if (out.length < IMU_BYTES) return -1;
      const s = ctx.vehicle.sensors;
      out.writeUInt32LE(IMU_MAGIC, 0);
      out.writeUInt16LE(1, 4);
      out.writeUInt16LE(0, 6);
      out.writeUInt32LE(ctx.seq >>> 0, 8);
      out.writeUInt32LE(ctx.vehicle.id >>> 0, 12);
      out.writeDoubleLE(ctx.timestamp, 16);
      out.writeDoubleLE(s.ax, 24);
      out.writeDoubleLE(s.ay, 32);
      out.writeDoubleLE(s.az, 40);
      out.writeDoubleLE(s.wx, 48);
      out.writeDoubleLE(s.wy, 56);
      out.writeDoubleLE(s.wz, 64);
      out.writeUInt32LE(crc32(out, 0, 72), 72);
      return IMU_BYTES;
    },
  },
});
