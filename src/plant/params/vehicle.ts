/**
 * VehicleParams: VDSim's vehicle parameter set with its compiled-in defaults (params.hpp), in SI units
 * unless the name says otherwise. Per-wheel arrays are ordered FL, FR, RL, RR.
 */
import type { Quad } from '../types.js';

export type DriveType = 'FWD' | 'RWD' | 'AWD';
export type DifferentialType = 'Open' | 'Locked' | 'LSD';
export const DRIVE_TYPES: readonly DriveType[] = ['FWD', 'RWD', 'AWD'];
export const DIFFERENTIAL_TYPES: readonly DifferentialType[] = ['Open', 'Locked', 'LSD'];

export interface VehicleParams {
  // mass
  mass: number;
  massSprung: number;
  /** Ixx, Iyy, Izz of the sprung body [kg m²]. */
  inertiaDiag: [number, number, number];
  // geometry
  wheelbase: number;
  cgToFront: number;
  cgToRear: number;
  trackFront: number;
  trackRear: number;
  cgHeight: number;
  wheelRadiusNominal: number;
  // suspension (L3; L2 uses the springs and roll centres for its quasi-static load transfer)
  springStiffness: Quad;
  damperCoefficient: Quad;
  unsprungMass: Quad;
  /** Wheel spin inertia [kg m²]; 0 → 0.5·m_u·R² (floor 0.01; m_u ≤ 0 → 25 kg). */
  wheelInertia: Quad;
  /** Anti-roll bar roll stiffness [N m/rad]. */
  arbStiffnessFront: number;
  arbStiffnessRear: number;
  rollCenterHeightFront: number;
  rollCenterHeightRear: number;
  /** Fractions [-] of the inertial pitch moment bypassing the springs under braking / traction. */
  antiDiveFront: number;
  antiSquatRear: number;
  /** Roll-to-camber gain [rad/rad] (L3). */
  camberPerRoll: number;
  springBumpRatio: number;
  springDroopRatio: number;
  // drivetrain
  driveType: DriveType;
  driveSplitFront: number;
  /** Skip the vehicle-side low-speed kinematic blend (VDSim's VLA plant path). */
  plantPath: boolean;
  differential: DifferentialType;
  lsdPreload: number;
  /** LSD bias growth per rad/s of wheel-speed difference [1/(rad/s)]. */
  lsdRamp: number;
  /** Peak motor torque before the final drive [N m]. */
  maxMotorTorque: number;
  finalDriveRatio: number;
  /** Engine/crank inertia [kg m²], reflected to the driven axle by final_drive². */
  engineRotationalInertia: number;
  /** Total brake torque at full pedal [N m], split by brakeBiasFront. */
  maxBrakeTorque: number;
  brakeBiasFront: number;
  brakeEbdEnabled: boolean;
  brakeDeadtimeS: number;
  driveDeadtimeS: number;
  steerDeadtimeS: number;
  // steering
  steeringRatio: number;
  maxSteerAngleWheel: number;
  ackermanPercent: number;
  steeringDynamic: boolean;
  rackMass: number;
  rackDamping: number;
  pinionRadius: number;
  casterTrail: number;
  // aero
  aeroDragCoeff: number;
  frontalArea: number;
  /** Lift coefficients, positive = downforce. */
  aeroLiftFront: number;
  aeroLiftRear: number;
}

export const DEFAULT_VEHICLE_PARAMS: Readonly<VehicleParams> = Object.freeze({
  mass: 1500,
  massSprung: 1350,
  inertiaDiag: [500, 2000, 2500],
  wheelbase: 2.7,
  cgToFront: 1.2,
  cgToRear: 1.5,
  trackFront: 1.55,
  trackRear: 1.55,
  cgHeight: 0.55,
  wheelRadiusNominal: 0.32,
  springStiffness: [30000, 30000, 30000, 30000],
  damperCoefficient: [3000, 3000, 3000, 3000],
  unsprungMass: [40, 40, 40, 40],
  wheelInertia: [0, 0, 0, 0],
  arbStiffnessFront: 0,
  arbStiffnessRear: 0,
  rollCenterHeightFront: 0,
  rollCenterHeightRear: 0,
  antiDiveFront: 0,
  antiSquatRear: 0,
  camberPerRoll: 0,
  springBumpRatio: 3,
  springDroopRatio: 0,
  driveType: 'RWD',
  driveSplitFront: 0.5,
  plantPath: false,
  differential: 'Open',
  lsdPreload: 0.1,
  lsdRamp: 0.2,
  maxMotorTorque: 300,
  finalDriveRatio: 5,
  engineRotationalInertia: 0.25,
  maxBrakeTorque: 2000,
  brakeBiasFront: 0.5,
  brakeEbdEnabled: false,
  brakeDeadtimeS: 0,
  driveDeadtimeS: 0,
  steerDeadtimeS: 0,
  steeringRatio: 15,
  maxSteerAngleWheel: 0.5,
  ackermanPercent: 0,
  steeringDynamic: false,
  rackMass: 30,
  rackDamping: 800,
  pinionRadius: 0.0075,
  casterTrail: 0.03,
  aeroDragCoeff: 0.3,
  frontalArea: 2.2,
  aeroLiftFront: 0,
  aeroLiftRear: 0,
} satisfies VehicleParams) as Readonly<VehicleParams>;

/** A fresh, mutable VehicleParams: the defaults with `overrides` applied (arrays are copied). */
export function vehicleParams(overrides: Partial<VehicleParams> = {}): VehicleParams {
  const d = DEFAULT_VEHICLE_PARAMS;
  const p: VehicleParams = {
    ...d,
    inertiaDiag: [...d.inertiaDiag],
    springStiffness: [...d.springStiffness],
    damperCoefficient: [...d.damperCoefficient],
    unsprungMass: [...d.unsprungMass],
    wheelInertia: [...d.wheelInertia],
  };
  return Object.assign(p, overrides);
}

/** Axle roll stiffness [N m/rad] = (k_L + k_R)·(track/2)² + ARB. axle 0 = front, 1 = rear. */
export function axleRollStiffness(vp: Readonly<VehicleParams>, axle: 0 | 1): number {
  const l = axle ? 2 : 0;
  const halfTrack = 0.5 * (axle ? vp.trackRear : vp.trackFront);
  const arb = axle ? vp.arbStiffnessRear : vp.arbStiffnessFront;
  return (vp.springStiffness[l] + vp.springStiffness[l + 1]) * halfTrack * halfTrack + (arb > 0 ? arb : 0);
}

/** Spin inertia of one wheel [kg m²] (explicit value, else the solid-disc estimate). */
export function wheelSpinInertia(vp: Readonly<VehicleParams>, wheel: number): number {
  if (vp.wheelInertia[wheel] > 0) return vp.wheelInertia[wheel];
  const mu = vp.unsprungMass[wheel] > 0 ? vp.unsprungMass[wheel] : 25;
  const r = vp.wheelRadiusNominal;
  return Math.max(0.01, 0.5 * mu * r * r);
}

/** Engine inertia reflected to the driven axles [kg m²]: { front, rear } (AWD halves it). */
export function reflectedEngineInertia(vp: Readonly<VehicleParams>): { front: number; rear: number } {
  const i = vp.engineRotationalInertia > 0 ? vp.engineRotationalInertia * vp.finalDriveRatio * vp.finalDriveRatio : 0;
  if (vp.driveType === 'FWD') return { front: i, rear: 0 };
  if (vp.driveType === 'RWD') return { front: 0, rear: i };
  return { front: 0.5 * i, rear: 0.5 * i };
}

/** Static per-wheel loads on level ground [N] (no aero, no transfer), FL, FR, RL, RR. */
export function staticWheelLoads(vp: Readonly<VehicleParams>, gravity: number): Quad {
  const f = (0.5 * vp.mass * gravity * vp.cgToRear) / vp.wheelbase;
  const r = (0.5 * vp.mass * gravity * vp.cgToFront) / vp.wheelbase;
  return [f, f, r, r];
}
