/**
 * ActuatorParams: per-channel dead time, first-order lag, slew limit and saturation between the command and
 * the plant (VDSim actuator.hpp). Every effect defaults off, so the layer is the identity.
 */

export interface ChannelActuatorParams {
  /** Pure transport delay [s]. */
  deadTimeS: number;
  /** First-order lag time constant [s]. */
  tauS: number;
  /** Slew limit [unit/s]; ≤ 0 disables. */
  rateLimit: number;
  /** Input dead band [-] of one-sided 0..1 channels (pedal tip-in, pad clearance). */
  deadZone: number;
  outMin: number;
  outMax: number;
}

/** LuGre steering friction of the torque-servo steering model. */
export interface SteerFrictionParams {
  enabled: boolean;
  /** Bristle stiffness [N m/rad]. */
  sigma0: number;
  sigma1: number;
  sigma2: number;
  /** Coulomb and static (breakaway) torques [N m]. */
  Tc: number;
  Ts: number;
  /** Stribeck velocity [rad/s]. */
  ws: number;
}

export interface SteerActuatorParams extends ChannelActuatorParams {
  friction: SteerFrictionParams;
  /** Steering inertia at the road-wheel angle [kg m²]. */
  inertia: number;
  /** Position servo gain [N m/rad] and damping [N m s/rad]. */
  servoKp: number;
  servoKd: number;
}

export interface BrakeActuatorParams extends ChannelActuatorParams {
  thermalEnabled: boolean;
  /** dT/dt += heat_coeff·|brake|·|v| [°C/m]. */
  heatCoeff: number;
  /** dT/dt −= cool_coeff·(T − T_ambient) [1/s]. */
  coolCoeff: number;
  ambientTempC: number;
  /** Friction scale vs temperature, piecewise linear: breakpoints [°C] and scales [-]. */
  muTempC: number[];
  muScale: number[];
}

export interface ActuatorParams {
  steer: SteerActuatorParams;
  throttle: ChannelActuatorParams;
  brake: BrakeActuatorParams;
}

export function channelActuator(overrides: Partial<ChannelActuatorParams> = {}): ChannelActuatorParams {
  return { deadTimeS: 0, tauS: 0, rateLimit: 0, deadZone: 0, outMin: -1e12, outMax: 1e12, ...overrides };
}

export function actuatorParams(
  overrides: { steer?: Partial<SteerActuatorParams>; throttle?: Partial<ChannelActuatorParams>; brake?: Partial<BrakeActuatorParams> } = {},
): ActuatorParams {
  return {
    steer: {
      ...channelActuator(),
      friction: { enabled: false, sigma0: 1.0e4, sigma1: 1.0e2, sigma2: 0.4, Tc: 1.0, Ts: 1.6, ws: 0.05 },
      inertia: 0.02,
      servoKp: 60,
      servoKd: 6,
      ...overrides.steer,
    },
    throttle: channelActuator(overrides.throttle),
    brake: {
      ...channelActuator(),
      thermalEnabled: false,
      heatCoeff: 0,
      coolCoeff: 0,
      ambientTempC: 40,
      muTempC: [],
      muScale: [],
      ...overrides.brake,
    },
  };
}
