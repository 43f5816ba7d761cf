/**
 * SensorParams: white noise + constant bias + random-walk bias per sensor group (VDSim sensors.hpp).
 * Disabled (the default) → measured = truth.
 */

export interface SensorNoise {
  /** White noise 1σ per sample, in the channel's unit. */
  noiseStd: number;
  bias: number;
  /** Random-walk rate: bias += N(0,1)·bias_rw·√dt [unit/√s]. */
  biasRw: number;
}

export const SENSOR_GROUPS = ['imu_accel', 'imu_gyro', 'wheel_speed', 'steer', 'gnss_pos', 'gnss_vel'] as const;
export type SensorGroup = (typeof SENSOR_GROUPS)[number];

/** A declared sensor from a scene-style sensor list; mount and rate are stored, not simulated (as in VDSim). */
export interface SensorDeclaration {
  id: string;
  type: string;
  /** Body-frame mount position [m] and roll/pitch/yaw [rad]. */
  mountPos: [number, number, number];
  mountRpy: [number, number, number];
  rateHz: number | null;
  params: Record<string, number>;
  /**
   * Who carries it (seed 001 §3): a vehicle id, `ego` (the first vehicle), or `infra:<name>` for a fixed
   * roadside sensor, whose mount is then a pose in the world frame. Absent: the vehicle the list belongs to.
   */
  host?: string;
}

export interface SensorParams {
  enabled: boolean;
  seed: number;
  /** m/s² (ax, ay, az). */
  imuAccel: SensorNoise;
  /** rad/s (wx, wy, wz). */
  imuGyro: SensorNoise;
  /** rad/s per wheel. */
  wheelSpeed: SensorNoise;
  /** rad road-wheel angle. */
  steer: SensorNoise;
  /** m (world x, y). */
  gnssPos: SensorNoise;
  /** m/s (ENU vE, vN). */
  gnssVel: SensorNoise;
  declarations: SensorDeclaration[];
}

export function sensorNoise(overrides: Partial<SensorNoise> = {}): SensorNoise {
  return { noiseStd: 0, bias: 0, biasRw: 0, ...overrides };
}

export function sensorParams(overrides: Partial<SensorParams> = {}): SensorParams {
  return {
    enabled: false,
    seed: 1,
    imuAccel: sensorNoise(),
    imuGyro: sensorNoise(),
    wheelSpeed: sensorNoise(),
    steer: sensorNoise(),
    gnssPos: sensorNoise(),
    gnssVel: sensorNoise(),
    declarations: [],
    ...overrides,
  };
}

export const SENSOR_GROUP_FIELD: Record<SensorGroup, 'imuAccel' | 'imuGyro' | 'wheelSpeed' | 'steer' | 'gnssPos' | 'gnssVel'> = {
  imu_accel: 'imuAccel',
  imu_gyro: 'imuGyro',
  wheel_speed: 'wheelSpeed',
  steer: 'steer',
  gnss_pos: 'gnssPos',
  gnss_vel: 'gnssVel',
};
