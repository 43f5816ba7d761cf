/** YAML key tables (VDSim member names → TypeScript fields) for the flat parameter files. */
import { DIFFERENTIAL_TYPES, DRIVE_TYPES } from '../params/vehicle.js';
import { INTEGRATORS } from '../params/solver.js';
import { TIRE_BACKENDS } from '../params/tire.js';
import { BOOL, type FieldSpec, NON_NEGATIVE, NUM, POSITIVE, QUAD, VEC3 } from './fields.js';

export const VEHICLE_FIELDS: readonly FieldSpec[] = [
  { key: 'mass', field: 'mass', kind: POSITIVE },
  { key: 'mass_sprung', field: 'massSprung', kind: POSITIVE },
  { key: 'inertia_diag', field: 'inertiaDiag', kind: VEC3 },
  { key: 'wheelbase', field: 'wheelbase', kind: POSITIVE },
  { key: 'cg_to_front', field: 'cgToFront', kind: NON_NEGATIVE },
  { key: 'cg_to_rear', field: 'cgToRear', kind: NON_NEGATIVE },
  { key: 'track_front', field: 'trackFront', kind: POSITIVE },
  { key: 'track_rear', field: 'trackRear', kind: POSITIVE },
  { key: 'cg_height', field: 'cgHeight', kind: NON_NEGATIVE },
  { key: 'wheel_radius_nominal', field: 'wheelRadiusNominal', kind: POSITIVE },
  { key: 'spring_stiffness', field: 'springStiffness', kind: QUAD },
  { key: 'damper_coefficient', field: 'damperCoefficient', kind: QUAD },
  { key: 'unsprung_mass', field: 'unsprungMass', kind: QUAD },
  { key: 'wheel_inertia', field: 'wheelInertia', kind: QUAD },
  { key: 'arb_stiffness_front', field: 'arbStiffnessFront', kind: NUM },
  { key: 'arb_stiffness_rear', field: 'arbStiffnessRear', kind: NUM },
  { key: 'roll_center_height_front', field: 'rollCenterHeightFront', kind: NUM },
  { key: 'roll_center_height_rear', field: 'rollCenterHeightRear', kind: NUM },
  { key: 'anti_dive_front', field: 'antiDiveFront', kind: NUM },
  { key: 'anti_squat_rear', field: 'antiSquatRear', kind: NUM },
  { key: 'camber_per_roll', field: 'camberPerRoll', kind: NUM },
  { key: 'spring_bump_ratio', field: 'springBumpRatio', kind: NUM },
  { key: 'spring_droop_ratio', field: 'springDroopRatio', kind: NUM },
  { key: 'drive_type', field: 'driveType', kind: { type: 'enum', values: DRIVE_TYPES } },
  { key: 'drive_split_front', field: 'driveSplitFront', kind: NUM },
  { key: 'plant_path', field: 'plantPath', kind: BOOL },
  { key: 'differential', field: 'differential', kind: { type: 'enum', values: DIFFERENTIAL_TYPES } },
  { key: 'lsd_preload', field: 'lsdPreload', kind: NUM },
  { key: 'lsd_ramp', field: 'lsdRamp', kind: NUM },
  { key: 'max_motor_torque', field: 'maxMotorTorque', kind: NON_NEGATIVE },
  { key: 'final_drive_ratio', field: 'finalDriveRatio', kind: NUM },
  { key: 'engine_rotational_inertia', field: 'engineRotationalInertia', kind: NON_NEGATIVE },
  { key: 'max_brake_torque', field: 'maxBrakeTorque', kind: NON_NEGATIVE },
  { key: 'brake_bias_front', field: 'brakeBiasFront', kind: NUM },
  { key: 'brake_ebd_enabled', field: 'brakeEbdEnabled', kind: BOOL },
  { key: 'brake_deadtime_s', field: 'brakeDeadtimeS', kind: NON_NEGATIVE },
  { key: 'drive_deadtime_s', field: 'driveDeadtimeS', kind: NON_NEGATIVE },
  { key: 'steer_deadtime_s', field: 'steerDeadtimeS', kind: NON_NEGATIVE },
  { key: 'steering_ratio', field: 'steeringRatio', kind: POSITIVE },
  { key: 'max_steer_angle_wheel', field: 'maxSteerAngleWheel', kind: POSITIVE },
  { key: 'ackerman_percent', field: 'ackermanPercent', kind: NUM },
  { key: 'steering_dynamic', field: 'steeringDynamic', kind: BOOL },
  { key: 'rack_mass', field: 'rackMass', kind: NUM },
  { key: 'rack_damping', field: 'rackDamping', kind: NUM },
  { key: 'pinion_radius', field: 'pinionRadius', kind: NUM },
  { key: 'caster_trail', field: 'casterTrail', kind: NUM },
  { key: 'aero_drag_coeff', field: 'aeroDragCoeff', kind: NON_NEGATIVE },
  { key: 'frontal_area', field: 'frontalArea', kind: NON_NEGATIVE },
  { key: 'aero_lift_front', field: 'aeroLiftFront', kind: NUM },
  { key: 'aero_lift_rear', field: 'aeroLiftRear', kind: NUM },
];

/** Keys VDSim writes into vehicle files that no equation reads (file references, renderer geometry). */
export const VEHICLE_METADATA_KEYS: readonly string[] = ['tire_yaml', 'body_lwh_m', 'wheel_width_m'];
/** VDSim vehicle keys this port reads but does not simulate. */
export const VEHICLE_UNSUPPORTED_KEYS: readonly string[] = ['powertrain'];

export const TIRE_FIELDS: readonly FieldSpec[] = [
  { key: 'B_long', field: 'B_long', kind: NUM },
  { key: 'C_long', field: 'C_long', kind: NUM },
  { key: 'D_long', field: 'D_long', kind: NUM },
  { key: 'E_long', field: 'E_long', kind: NUM },
  { key: 'B_lat', field: 'B_lat', kind: NUM },
  { key: 'C_lat', field: 'C_lat', kind: NUM },
  { key: 'D_lat', field: 'D_lat', kind: NUM },
  { key: 'E_lat', field: 'E_lat', kind: NUM },
  { key: 'mu_nominal', field: 'muNominal', kind: NON_NEGATIVE },
  { key: 'Fz_nominal', field: 'FzNominal', kind: POSITIVE },
  { key: 'cornering_stiffness', field: 'corneringStiffness', kind: NON_NEGATIVE },
  { key: 'rolling_resistance', field: 'rollingResistance', kind: NON_NEGATIVE },
  { key: 'combined_slip_enabled', field: 'combinedSlipEnabled', kind: BOOL },
  { key: 'pneumatic_trail', field: 'pneumaticTrail', kind: NUM },
  { key: 'trail_falloff_alpha', field: 'trailFalloffAlpha', kind: NUM },
  { key: 'camber_stiffness', field: 'camberStiffness', kind: NUM },
  { key: 'crown_radius', field: 'crownRadius', kind: NON_NEGATIVE },
  { key: 'load_sensitivity', field: 'loadSensitivity', kind: NUM },
  { key: 'relaxation_length_lat', field: 'relaxationLengthLat', kind: NON_NEGATIVE },
  { key: 'relaxation_length_long', field: 'relaxationLengthLong', kind: NON_NEGATIVE },
  { key: 'tire_vertical_stiffness', field: 'tireVerticalStiffness', kind: POSITIVE },
  { key: 'reff_breff', field: 'reffBreff', kind: NUM },
  { key: 'reff_dreff', field: 'reffDreff', kind: NUM },
  { key: 'reff_freff', field: 'reffFreff', kind: NUM },
  { key: 'vlow_speed_eps', field: 'vlowSpeedEps', kind: POSITIVE },
  { key: 'low_speed_mode', field: 'lowSpeedMode', kind: { type: 'enum', values: ['kinematic_blend'] } },
  { key: 'backend', field: 'backend', kind: { type: 'enum', values: TIRE_BACKENDS } },
];

export const LUGRE_FIELDS: readonly FieldSpec[] = [
  { key: 'enabled', field: 'enabled', kind: BOOL },
  { key: 'sigma0', field: 'sigma0', kind: POSITIVE },
  { key: 'sigma1', field: 'sigma1', kind: NON_NEGATIVE },
  { key: 'sigma2', field: 'sigma2', kind: NON_NEGATIVE },
  { key: 'm_eff', field: 'mEff', kind: POSITIVE },
];

export const BELT_FIELDS: readonly FieldSpec[] = [
  { key: 'enabled', field: 'enabled', kind: BOOL },
  { key: 'sigma_lat', field: 'sigmaLat', kind: NON_NEGATIVE },
  { key: 'sigma_long', field: 'sigmaLong', kind: NON_NEGATIVE },
];

export const SOLVER_FIELDS: readonly FieldSpec[] = [
  { key: 'integrator', field: 'integrator', kind: { type: 'enum', values: INTEGRATORS } },
  { key: 'max_substep_dt', field: 'maxSubstepDt', kind: POSITIVE },
  { key: 'max_substeps', field: 'maxSubsteps', kind: { type: 'int', min: 1 } },
];
/** VDSim solver keys for the L5 stunt model, which is not ported. */
export const SOLVER_UNSUPPORTED_KEYS: readonly string[] = ['stunt_physics', 'loop_radius', 'loop_center_x', 'loop_center_z', 'loop_rail_guide', 'l5_spatial_suspension'];

export const NOISE_FIELDS: readonly FieldSpec[] = [
  { key: 'noise_std', field: 'noiseStd', kind: NON_NEGATIVE },
  { key: 'bias', field: 'bias', kind: NUM },
  { key: 'bias_rw', field: 'biasRw', kind: NON_NEGATIVE },
];

export const CHANNEL_FIELDS: readonly FieldSpec[] = [
  { key: 'dead_time_s', field: 'deadTimeS', kind: NON_NEGATIVE },
  { key: 'tau_s', field: 'tauS', kind: NON_NEGATIVE },
  { key: 'rate_limit', field: 'rateLimit', kind: NUM },
  { key: 'dead_zone', field: 'deadZone', kind: { type: 'number', min: 0 } },
  { key: 'out_min', field: 'outMin', kind: NUM },
  { key: 'out_max', field: 'outMax', kind: NUM },
];

export const STEER_SERVO_FIELDS: readonly FieldSpec[] = [
  ...CHANNEL_FIELDS,
  { key: 'inertia', field: 'inertia', kind: POSITIVE },
  { key: 'servo_kp', field: 'servoKp', kind: NUM },
  { key: 'servo_kd', field: 'servoKd', kind: NUM },
];

export const STEER_FRICTION_FIELDS: readonly FieldSpec[] = [
  { key: 'enabled', field: 'enabled', kind: BOOL },
  { key: 'sigma0', field: 'sigma0', kind: POSITIVE },
  { key: 'sigma1', field: 'sigma1', kind: NON_NEGATIVE },
  { key: 'sigma2', field: 'sigma2', kind: NON_NEGATIVE },
  { key: 'Tc', field: 'Tc', kind: NON_NEGATIVE },
  { key: 'Ts', field: 'Ts', kind: NON_NEGATIVE },
  { key: 'ws', field: 'ws', kind: POSITIVE },
];

export const BRAKE_ACTUATOR_FIELDS: readonly FieldSpec[] = [
  ...CHANNEL_FIELDS,
  { key: 'thermal_enabled', field: 'thermalEnabled', kind: BOOL },
  { key: 'heat_coeff', field: 'heatCoeff', kind: NON_NEGATIVE },
  { key: 'cool_coeff', field: 'coolCoeff', kind: NON_NEGATIVE },
  { key: 'T_ambient', field: 'ambientTempC', kind: NUM },
  { key: 'mu_T_temp', field: 'muTempC', kind: { type: 'list' } },
  { key: 'mu_T_scale', field: 'muScale', kind: { type: 'list' } },
];
