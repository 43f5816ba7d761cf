import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SOLVER_PARAMS,
  DEFAULT_TIRE_PARAMS,
  DEFAULT_VEHICLE_PARAMS,
  GRAVITY,
  actuatorParams,
  axleRollStiffness,
  effectiveRollingRadius,
  reflectedEngineInertia,
  sensorParams,
  solverParams,
  staticWheelLoads,
  substepCount,
  substepsClamped,
  tireParams,
  vehicleParams,
  wheelSpinInertia,
} from '../../src/plant/index.js';

describe('VehicleParams defaults (spec §6.2, params.hpp)', () => {
  it('mass, geometry, suspension, drivetrain, brake, steering and aero defaults', () => {
    const v = DEFAULT_VEHICLE_PARAMS;
    expect([v.mass, v.massSprung, ...v.inertiaDiag]).toEqual([1500, 1350, 500, 2000, 2500]);
    expect([v.wheelbase, v.cgToFront, v.cgToRear, v.trackFront, v.trackRear, v.cgHeight, v.wheelRadiusNominal]).toEqual([2.7, 1.2, 1.5, 1.55, 1.55, 0.55, 0.32]);
    expect([v.springStiffness, v.damperCoefficient, v.unsprungMass, v.wheelInertia]).toEqual([[3e4, 3e4, 3e4, 3e4], [3000, 3000, 3000, 3000], [40, 40, 40, 40], [0, 0, 0, 0]]);
    expect([v.arbStiffnessFront, v.rollCenterHeightFront, v.antiDiveFront, v.camberPerRoll, v.springBumpRatio, v.springDroopRatio]).toEqual([0, 0, 0, 0, 3, 0]);
    expect([v.driveType, v.differential, v.lsdPreload, v.lsdRamp, v.maxMotorTorque, v.finalDriveRatio, v.engineRotationalInertia]).toEqual(['RWD', 'Open', 0.1, 0.2, 300, 5, 0.25]);
    expect([v.maxBrakeTorque, v.brakeBiasFront, v.brakeEbdEnabled]).toEqual([2000, 0.5, false]);
    expect([v.steeringRatio, v.maxSteerAngleWheel, v.ackermanPercent, v.steeringDynamic]).toEqual([15, 0.5, 0, false]);
    expect([v.aeroDragCoeff, v.frontalArea, v.aeroLiftFront, v.aeroLiftRear]).toEqual([0.3, 2.2, 0, 0]);
  });
  it('vehicleParams() copies the arrays, so edits do not leak into the defaults', () => {
    const p = vehicleParams({ mass: 1200 });
    p.springStiffness[0] = 1;
    expect(p.mass).toBe(1200);
    expect(DEFAULT_VEHICLE_PARAMS.springStiffness[0]).toBe(30000);
  });
  it('derived: I_wheel = 0.5·40·0.32² = 2.048, engine 0.25·5² = 6.25 on the rear axle, static loads 4086.1 / 3268.9 N', () => {
    const v = vehicleParams();
    expect(wheelSpinInertia(v, 0)).toBeCloseTo(2.048, 12);
    expect(wheelSpinInertia(vehicleParams({ wheelInertia: [1.1, 0, 0, 0] }), 0)).toBe(1.1);
    expect(wheelSpinInertia(vehicleParams({ unsprungMass: [0, 0, 0, 0] }), 0)).toBeCloseTo(0.5 * 25 * 0.32 ** 2, 12);
    expect(reflectedEngineInertia(v)).toEqual({ front: 0, rear: 6.25 });
    expect(reflectedEngineInertia(vehicleParams({ driveType: 'AWD' }))).toEqual({ front: 3.125, rear: 3.125 });
    const fz = staticWheelLoads(v, GRAVITY);
    expect(fz[0]).toBeCloseTo(4086.1, 1);
    expect(fz[2]).toBeCloseTo(3268.9, 1);
  });
  it('axle roll stiffness = (k_L + k_R)·(track/2)² + ARB', () => {
    expect(axleRollStiffness(vehicleParams(), 0)).toBeCloseTo(60000 * 0.775 ** 2, 9);
    expect(axleRollStiffness(vehicleParams({ arbStiffnessRear: 5000 }), 1)).toBeCloseTo(60000 * 0.775 ** 2 + 5000, 9);
  });
});

describe('TireParams defaults (spec §6.3)', () => {
  it('MF96 coefficients, friction, options, LuGre on, belt off', () => {
    const t = DEFAULT_TIRE_PARAMS;
    expect([t.B_long, t.C_long, t.D_long, t.E_long, t.B_lat, t.C_lat, t.D_lat, t.E_lat]).toEqual([10, 1.65, 1, 0.97, 8, 1.3, 1, -1]);
    expect([t.muNominal, t.FzNominal, t.corneringStiffness, t.rollingResistance, t.loadSensitivity]).toEqual([1, 4000, 80000, 0, 0]);
    expect([t.combinedSlipEnabled, t.pneumaticTrail, t.trailFalloffAlpha, t.camberStiffness, t.crownRadius]).toEqual([true, 0.05, 0.2, 0, 0]);
    expect([t.relaxationLengthLat, t.relaxationLengthLong, t.tireVerticalStiffness, t.backend]).toEqual([0, 0, 220000, 'mf96']);
    expect(t.lugre).toEqual({ enabled: true, sigma0: 9.0e4, sigma1: 0, sigma2: 75, mEff: 40 });
    expect(t.belt).toEqual({ enabled: false, sigmaLat: 0.5, sigmaLong: 0.5 });
  });
  it('effective rolling radius: R0 without coefficients, Pacejka form with them', () => {
    expect(effectiveRollingRadius(tireParams(), 0.32, 4000)).toBe(0.32);
    const tp = tireParams({ reffBreff: 8, reffDreff: 0.25, reffFreff: 0.07 });
    const expected = 0.32 - (4000 / 220000) * (0.25 * Math.atan(8 * 1) + 0.07 * 1);
    expect(effectiveRollingRadius(tp, 0.32, 4000)).toBeCloseTo(expected, 12);
  });
});

describe('SolverParams (spec §6.4)', () => {
  it('defaults RK4, 1 ms, 10 substeps', () => {
    expect(DEFAULT_SOLVER_PARAMS).toEqual({ integrator: 'RK4', maxSubstepDt: 1e-3, maxSubsteps: 10 });
  });
  it('N = clamp(ceil(dt / max_substep_dt), 1, max_substeps): 5 at 5 ms, 2 at 2 ms, 1 at 0.5 ms, clamped to 10 at 20 ms', () => {
    const sp = solverParams();
    expect([0.005, 0.002, 0.0005, 0.0025, 0.02].map((dt) => substepCount(sp, dt))).toEqual([5, 2, 1, 3, 10]);
    expect(substepsClamped(sp, 0.02)).toBe(true);
    expect(substepsClamped(sp, 0.01)).toBe(false);
    expect(substepCount(sp, 0)).toBe(1);
  });
});

describe('sensor and actuator defaults are the identity', () => {
  it('sensors disabled, seed 1, zero noise; actuator channels without delay, lag, slew or saturation', () => {
    const s = sensorParams();
    expect([s.enabled, s.seed, s.imuAccel.noiseStd, s.gnssPos.biasRw]).toEqual([false, 1, 0, 0]);
    const a = actuatorParams();
    expect([a.steer.deadTimeS, a.steer.tauS, a.steer.rateLimit, a.throttle.deadZone, a.brake.thermalEnabled]).toEqual([0, 0, 0, 0, false]);
    expect([a.steer.servoKp, a.steer.servoKd, a.steer.inertia, a.brake.ambientTempC]).toEqual([60, 6, 0.02, 40]);
  });
});
