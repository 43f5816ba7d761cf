/**
 * L1 dynamic bicycle (port of VDSim bicycle_dynamics): planar pose, body velocities and one spin per axle.
 * Static axle loads with longitudinal transfer lagged one substep, no lateral transfer; each axle is two
 * identical tires at half the axle load (one tire evaluated, wrench doubled); slip angles from
 * atan2(v_y,wheel, v_x,wheel). Same tire layer, low-speed blend and RK4 substepping as L2.
 */
import type { ContactSet } from '../contact.js';
import { type SolverParams, substepCount, substepsClamped } from '../params/solver.js';
import { type TireSetup, providesCombinedSlip } from '../params/tire.js';
import { type VehicleParams, reflectedEngineInertia, wheelSpinInertia } from '../params/vehicle.js';
import { VehicleState, wrapYaw } from '../state.js';
import { TIRE_FZ, TIRE_GAMMA, TIRE_MU_LAT, TIRE_MU_LONG, TIRE_OMEGA, TIRE_R0, TIRE_VX, TIRE_VY, WheelTire } from '../tire/wheel-tire.js';
import { AIR_DENSITY, type DriverCommand, GRAVITY, type Level, copyCommand, neutralCommand } from '../types.js';
import { useDoubleFields } from '../double-fields.js';
import { BRAKE_OMEGA_WIDTH } from './drivetrain.js';
import { PlantDiagnostics, type VehicleModel } from './model.js';
import { RoadFrame } from './road-frame.js';
import { KINEMATIC_TAU, STICK_BLEND_SPEED, STICK_HOLD_DAMPING } from './seven-dof.js';

const N = 8; // x, y, yaw, vx, vy, r, ω_front, ω_rear
const NK = 10; // + ax, ay

export class BicycleModel implements VehicleModel {
  readonly level: Level = 'L1';
  readonly state = new VehicleState();
  readonly diagnostics = new PlantDiagnostics();
  readonly warnings: string[] = [];
  private readonly vp: Readonly<VehicleParams>;
  private readonly sp: Readonly<SolverParams>;
  private readonly front: WheelTire;
  private readonly rear: WheelTire;
  private readonly combinedFront: boolean;
  private readonly combinedRear: boolean;
  private readonly spinInertiaFront: number;
  private readonly spinInertiaRear: number;
  private readonly road = new RoadFrame();
  private readonly cmd: DriverCommand = neutralCommand();
  private contacts!: Readonly<ContactSet>;
  private readonly y = new Float64Array(N);
  private readonly y0 = new Float64Array(N);
  private readonly ys = new Float64Array(N);
  private readonly k1 = new Float64Array(NK);
  private readonly k2 = new Float64Array(NK);
  private readonly k3 = new Float64Array(NK);
  private readonly k4 = new Float64Array(NK);
  private axPrev = 0;
  private ayPrev = 0;
  /** Substep length [s] of the current step. */
  private h = 0;
  private clampWarned = new Set<number>();

  constructor(vp: Readonly<VehicleParams>, tires: TireSetup, sp: Readonly<SolverParams>) {
    this.vp = vp;
    this.sp = sp;
    this.front = new WheelTire(tires[0]);
    this.rear = new WheelTire(tires[2]);
    this.combinedFront = providesCombinedSlip(tires[0]);
    this.combinedRear = providesCombinedSlip(tires[2]);
    const refl = reflectedEngineInertia(vp);
    this.spinInertiaFront = wheelSpinInertia(vp, 0) + refl.front;
    this.spinInertiaRear = wheelSpinInertia(vp, 2) + refl.rear;
    useDoubleFields(this, ['axPrev', 'ayPrev', 'h']);
  }

  reset(initial: Readonly<VehicleState>): void {
    this.state.copyFrom(initial);
    this.axPrev = this.ayPrev = 0;
    this.front.resetTransient();
    this.rear.resetTransient();
    this.diagnostics.clear();
  }

  step(cmd: Readonly<DriverCommand>, contacts: Readonly<ContactSet>, dt: number): void {
    if (!(dt > 0) || !Number.isFinite(dt)) return;
    copyCommand(this.cmd, cmd);
    this.contacts = contacts;
    const count = substepCount(this.sp, dt);
    if (substepsClamped(this.sp, dt) && !this.clampWarned.has(dt)) {
      this.clampWarned.add(dt);
      this.warnings.push(`solver: max_substeps=${this.sp.maxSubsteps} cannot deliver max_substep_dt=${this.sp.maxSubstepDt} s at dt=${dt} s; integrating with h=${dt / count} s`);
    }
    this.h = dt / count;
    const hb = this.sp.integrator === 'Euler' ? this.h : 0.25 * this.h;
    this.front.hBristle = this.rear.hBristle = hb;
    this.front.hRelax = this.rear.hRelax = this.h;
    const s = this.state;
    const y = this.y;
    y[0] = s.x;
    y[1] = s.y;
    y[2] = s.yaw;
    y[3] = s.vx;
    y[4] = s.vy;
    y[5] = s.yawRate;
    y[6] = s.wheelSpin[0];
    y[7] = s.wheelSpin[2];
    for (let n = 0; n < count; n++) this.substep();
    s.x = y[0];
    s.y = y[1];
    s.yaw = wrapYaw(y[2]);
    s.vx = y[3];
    s.vy = y[4];
    s.yawRate = y[5];
    s.wheelSpin[0] = s.wheelSpin[1] = y[6];
    s.wheelSpin[2] = s.wheelSpin[3] = y[7];
    this.diagnostics.ax = this.axPrev;
    this.diagnostics.ay = this.ayPrev;
  }

  private substep(): void {
    const { y, y0, ys, k1, k2, k3, k4, front, rear, h } = this;
    y0.set(y);
    const lugre = front.lugreOn || rear.lugreOn;
    if (this.sp.integrator === 'Euler') {
      this.derivatives(y0, k1);
      for (let j = 0; j < N; j++) y[j] = y0[j] + h * k1[j];
      this.axPrev = k1[N];
      this.ayPrev = k1[N + 1];
      if (lugre) {
        front.advanceBristle();
        rear.advanceBristle();
      }
      return;
    }
    ys.set(y0);
    this.stage(ys, k1);
    for (let j = 0; j < N; j++) ys[j] = y0[j] + 0.5 * h * k1[j];
    this.stage(ys, k2);
    for (let j = 0; j < N; j++) ys[j] = y0[j] + 0.5 * h * k2[j];
    this.stage(ys, k3);
    for (let j = 0; j < N; j++) ys[j] = y0[j] + h * k3[j];
    this.stage(ys, k4);
    const h6 = h / 6;
    for (let j = 0; j < N; j++) y[j] = y0[j] + h6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    this.axPrev = (k1[N] + 2 * k2[N] + 2 * k3[N] + k4[N]) / 6;
    this.ayPrev = (k1[N + 1] + 2 * k2[N + 1] + 2 * k3[N + 1] + k4[N + 1]) / 6;
    front.advanceRelaxation();
    rear.advanceRelaxation();
  }

  /** One RK stage: derivatives, then the LuGre bristles advance by h/4. */
  private stage(s: Float64Array, k: Float64Array): void {
    this.derivatives(s, k);
    if (this.front.lugreOn || this.rear.lugreOn) {
      this.front.advanceBristle();
      this.rear.advanceBristle();
    }
  }

  private derivatives(s: Float64Array, out: Float64Array): void {
    const vp = this.vp;
    const c = this.contacts;
    const cmd = this.cmd;
    const diag = this.diagnostics;
    const d = cmd.steer;
    const yaw = s[2];
    const vx = s[3];
    const vy = s[4];
    const r = s[5];
    const m = vp.mass;
    const a = vp.cgToFront;
    const b = vp.cgToRear;
    const L = vp.wheelbase;

    this.road.update(c, s, 2);
    const cosSlope = Math.max(0.1, this.road.hasNormal ? this.road.cosSlope : 1);
    const gx = this.road.gx;
    const gy = this.road.gy;
    const q = 0.5 * AIR_DENSITY * vp.frontalArea * vx * Math.abs(vx);
    const dLong = (m * this.axPrev * vp.cgHeight) / L;
    let fzF = (m * GRAVITY * cosSlope * b) / L + vp.aeroLiftFront * q - dLong;
    let fzR = (m * GRAVITY * cosSlope * a) / L + vp.aeroLiftRear * q + dLong;
    if (fzF < 0) fzF = 0;
    if (fzR < 0) fzR = 0;
    const muLongF = 0.5 * (c.muLong[0] + c.muLong[1]);
    const muLatF = 0.5 * (c.muLat[0] + c.muLat[1]);
    const muLongR = 0.5 * (c.muLong[2] + c.muLong[3]);
    const muLatR = 0.5 * (c.muLat[2] + c.muLat[3]);

    const vfy = vy + a * r;
    const vry = vy - b * r;
    const cd = Math.cos(d);
    const sd = Math.sin(d);
    const vfxW = vx * cd + vfy * sd;
    const vfyW = -vx * sd + vfy * cd;
    const R = vp.wheelRadiusNominal;
    const front = this.front;
    const rear = this.rear;
    const fi = front.input;
    fi[TIRE_FZ] = 0.5 * fzF;
    fi[TIRE_VX] = vfxW;
    fi[TIRE_VY] = vfyW;
    fi[TIRE_OMEGA] = s[6];
    fi[TIRE_GAMMA] = 0;
    fi[TIRE_MU_LONG] = muLongF;
    fi[TIRE_MU_LAT] = muLatF;
    fi[TIRE_R0] = R;
    const ri = rear.input;
    ri[TIRE_FZ] = 0.5 * fzR;
    ri[TIRE_VX] = vx;
    ri[TIRE_VY] = vry;
    ri[TIRE_OMEGA] = s[7];
    ri[TIRE_GAMMA] = 0;
    ri[TIRE_MU_LONG] = muLongR;
    ri[TIRE_MU_LAT] = muLatR;
    ri[TIRE_R0] = R;
    front.evaluate();
    rear.evaluate();
    const ffx = 2 * front.Fx;
    const ffy = 2 * front.Fy;
    const rfx = 2 * rear.Fx;
    const rfy = 2 * rear.Fy;

    const lugreOn = front.lugreOn;
    let lambda = 1;
    if (!lugreOn) {
      const l = Math.min(1, Math.max(0, Math.sqrt(vx * vx + vy * vy) / STICK_BLEND_SPEED));
      lambda = l * l * (3 - 2 * l);
    }
    const muFzF = Math.min(muLongF, muLatF) * fzF;
    const muFzR = Math.min(muLongR, muLatR) * fzR;
    let fxF = 0;
    let fyF = 0;
    let fxR = 0;
    let fyR = 0;
    let fxKinF = 0;
    let fxKinR = 0;
    let holdF = 0;
    let holdR = 0;
    if (lugreOn) {
      fxF = ffx;
      fyF = ffy;
      fxR = rfx;
      fyR = rfy;
      fxKinF = fxKinR = 0;
    } else {
      const gate = (1 - lambda) * Math.min(1, Math.max(0, cmd.brake - cmd.throttle));
      holdF = -2 * STICK_HOLD_DAMPING * vx * gate;
      holdR = holdF;
      if (Math.abs(holdF) > muFzF) holdF = Math.sign(holdF) * muFzF;
      if (Math.abs(holdR) > muFzR) holdR = Math.sign(holdR) * muFzR;
      fxF = ffx + holdF;
      fyF = lambda * ffy;
      fxR = rfx + holdR;
      fyR = lambda * rfy;
      fxKinF = ffx;
      fxKinR = rfx;
    }
    if (!this.combinedFront) {
      const mag = Math.sqrt(fxF * fxF + fyF * fyF);
      if (mag > muFzF && mag > 1e-9) {
        fxF *= muFzF / mag;
        fyF *= muFzF / mag;
      }
    }
    if (!this.combinedRear) {
      const mag = Math.sqrt(fxR * fxR + fyR * fyR);
      if (mag > muFzR && mag > 1e-9) {
        fxR *= muFzR / mag;
        fyR *= muFzR / mag;
      }
    }
    if (lugreOn) {
      fxKinF = fxF;
      fxKinR = fxR;
    }
    const fxBodyF = fxF * cd - fyF * sd;
    const fyBodyF = fxF * sd + fyF * cd;

    const fAero = 0.5 * AIR_DENSITY * vp.aeroDragCoeff * vp.frontalArea * vx * Math.abs(vx);
    const fRoll = front.tp.rollingResistance * fzF * Math.tanh(vx / 0.5) + rear.tp.rollingResistance * fzR * Math.tanh(vx / 0.5);
    const tMot = cmd.gear === 0 ? 0 : (cmd.gear < 0 ? -1 : 1) * cmd.throttle * vp.maxMotorTorque * vp.finalDriveRatio;
    const tdF = vp.driveType === 'FWD' ? tMot : vp.driveType === 'AWD' ? 0.5 * tMot : 0;
    const tdR = vp.driveType === 'RWD' ? tMot : vp.driveType === 'AWD' ? 0.5 * tMot : 0;
    let bias = Math.min(1, Math.max(0, vp.brakeBiasFront));
    if (vp.brakeEbdEnabled && fzF + fzR > 1) bias = Math.min(0.95, Math.max(0.05, fzF / (fzF + fzR)));
    const tbF = -Math.tanh(s[6] / BRAKE_OMEGA_WIDTH) * bias * cmd.brake * vp.maxBrakeTorque;
    const tbR = -Math.tanh(s[7] / BRAKE_OMEGA_WIDTH) * (1 - bias) * cmd.brake * vp.maxBrakeTorque;

    const fxTotal = fxBodyF + fxR - fAero - fRoll + m * gx;
    const fyTotal = fyBodyF + fyR + m * gy;
    const mzScale = lugreOn ? 1 : lambda;
    const mz = a * fyBodyF - b * fyR + mzScale * 2 * (front.Mz + rear.Mz);
    const cy = Math.cos(yaw);
    const sy = Math.sin(yaw);
    out[0] = vx * cy - vy * sy;
    out[1] = vx * sy + vy * cy;
    out[2] = r;
    out[3] = fxTotal / m + vy * r;
    let dvy = fyTotal / m - vx * r;
    let dr = mz / vp.inertiaDiag[2];
    if (!lugreOn) {
      const rKin = L > 1e-6 ? (vx * Math.tan(d)) / L : 0;
      dvy += ((1 - lambda) * (rKin * b - vy)) / KINEMATIC_TAU;
      dr += ((1 - lambda) * (rKin - r)) / KINEMATIC_TAU;
    }
    out[4] = dvy;
    out[5] = dr;
    out[6] = (tdF + tbF - fxKinF * front.Re) / this.spinInertiaFront;
    out[7] = (tdR + tbR - fxKinR * rear.Re) / this.spinInertiaRear;
    out[N] = fxTotal / m;
    out[N + 1] = fyTotal / m;

    // diagnostics: axle values split over the two tires
    let dfxF = fxBodyF;
    let dfyF = fyBodyF;
    let dfxR = fxR;
    let dfyR = fyR;
    if (!lugreOn) {
      // reported force: slip force faded by λ plus the hold force, clipped to μ·Fz
      let xf = lambda * ffx + holdF;
      let yf = lambda * ffy;
      let mg = Math.sqrt(xf * xf + yf * yf);
      if (mg > muFzF && mg > 1e-9) {
        xf *= muFzF / mg;
        yf *= muFzF / mg;
      }
      dfxF = xf * cd - yf * sd;
      dfyF = xf * sd + yf * cd;
      dfxR = lambda * rfx + holdR;
      dfyR = lambda * rfy;
      mg = Math.sqrt(dfxR * dfxR + dfyR * dfyR);
      if (mg > muFzR && mg > 1e-9) {
        dfxR *= muFzR / mg;
        dfyR *= muFzR / mg;
      }
    }
    diag.tireFx[0] = diag.tireFx[1] = 0.5 * dfxF;
    diag.tireFy[0] = diag.tireFy[1] = 0.5 * dfyF;
    diag.tireFx[2] = diag.tireFx[3] = 0.5 * dfxR;
    diag.tireFy[2] = diag.tireFy[3] = 0.5 * dfyR;
    diag.Fz[0] = diag.Fz[1] = 0.5 * fzF;
    diag.Fz[2] = diag.Fz[3] = 0.5 * fzR;
    diag.slipRatio[0] = diag.slipRatio[1] = front.kappa;
    diag.slipRatio[2] = diag.slipRatio[3] = rear.kappa;
    diag.slipAngle[0] = diag.slipAngle[1] = front.alpha;
    diag.slipAngle[2] = diag.slipAngle[3] = rear.alpha;
    diag.wheelMu[0] = diag.wheelMu[1] = Math.min(muLongF, muLatF);
    diag.wheelMu[2] = diag.wheelMu[3] = Math.min(muLongR, muLatR);
    diag.rackTorque = (2 * front.Mz * mzScale) / Math.max(1e-6, vp.steeringRatio);
  }
}
