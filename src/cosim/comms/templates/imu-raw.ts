/**
 * `imu_raw`: the 32-byte `<dddd` struct of VDSim's Python router (python/vdsim_comms.py): ax, ay, wz and a
 * 0.0 filler, little-endian f64, no header or CRC. Kept for consumers of that router; `imu` is the full struct.
 */
import { viewOf } from '../../vds1.js';
import { registerTemplate } from './registry.js';

registerTemplate({
  name: 'imu_raw',
  summary: "VDSim Python router's 32 B IMU struct: ax, ay, wz, 0.0 (f64 LE)",
  tx: {
    sources: ['state', 'sensor'],
    sensorTypes: ['imu', 'imu_accel', 'imu_gyro'],
    encode(ctx, out) {
      if (out.length < 32) return -1;
      const s = ctx.vehicle.sensors;
      const dv = viewOf(out);
      const b = out.byteOffset;
      dv.setFloat64(b, s.ax, true);
      dv.setFloat64(b + 8, s.ay, true);
      dv.setFloat64(b + 16, s.wz, true);
      dv.setFloat64(b + 24, 0, true);
      return 32;
    },
  },
});
