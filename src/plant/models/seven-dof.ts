/**
 * L2 "7-DOF" model (port of VDSim seven_dof_dynamics): planar pose (x, y, ψ), body velocities (vx, vy, r) and
 * four wheel spins, integrated with RK4 over substeps. Quasi-static load transfer lags one substep (the
 * RK-weighted body accelerations of the previous substep); LuGre bristles advance once per RK stage (h/4),
 * relaxation lags once per substep. Non-LuGre tires get the low-speed kinematic blend and brake-hold creep.
 * Tire forces act in the road-projected body plane; on a grade or bank the tangential gravity is added.
 */
import type { ContactSet } from '../contact.js';
import { type SolverParams, substepCount, substepsClamped } from '../params/solver.js';
import { type TireSetup, providesCombinedSlip } from '../params/tire.js';
import type { VehicleParams } from '../params/vehicle.js';
import { VehicleState, wrapYaw } from '../state.js';
import { TIRE_FZ, TIRE_GAMMA, TIRE_MU_LAT, TIRE_MU_LONG, TIRE_OMEGA, TIRE_R0, TIRE_VX, TIRE_VY, WheelTire } from '../tire/wheel-tire.js';
import { AIR_DENSITY, type DriverCommand, GRAVITY, type Level, copyCommand, neutralCommand } from '../types.js';
import { useDoubleFields } from '../double-fields.js';
import { Drivetrain } from './drivetrain.js';
import { QuasiStaticLoads } from './load-transfer.js';
import { PlantDiagnostics, type VehicleModel } from './model.js';
import { RoadFrame } from './road-frame.js';
import { ackermannAngles } from './steering.js';

/** Low-speed blend onset [m/s], brake-hold creep damping [N s/m], kinematic relaxation time [s] (low_speed.hpp). */
export const STICK_BLEND_SPEED = 3.0;
export const STICK_HOLD_DAMPING = 6.0e4;
export const KINEMATIC_TAU = 0.05;

const N = 10; // x, y, yaw, vx, vy, r, w0..w3
const IAX = 10; // derivative slots 10, 11: body ax, ay
const NK = 12;

export class SevenDofModel implements VehicleModel {
  readonly level: Level = 'L2';
  readonly state = new VehicleState();
  readonly diagnostics = new PlantDiagnostics();
  readonly warnings: string[] = [];
  readonly tires: readonly WheelTire[];
  /** Camber [rad] and toe [rad] per wheel, set by an outer model (L3) before step(). */
  readonly camber = new Float64Array(4);
  readonly toe = new Float64Array(4);
  /** Normal loads an outer model supplies for the next step (L3); consumed by step(). */
  readonly externalFz = new Float64Array(4);
  private useExternalFz = false;

  private readonly vp: Readonly<VehicleParams>;
  private readonly sp: Readonly<SolverParams>;
  private readonly drivetrain: Drivetrain;
  private readonly loads: QuasiStaticLoads;
  private readonly road = new RoadFrame();
  private readonly rx: Float64Array;
  private readonly ry: Float64Array;
  private readonly lugre = new Uint8Array(4);
  private readonly combinedByTire = new Uint8Array(4);
  private readonly rollingRes = new Float64Array(4);
  private readonly lugreAll: boolean;
  private readonly lugreAny: boolean;
  private readonly dragK: number;

  private readonly y = new Float64Array(N);
  private readonly y0 = new Float64Array(N);
  private readonly ys = new Float64Array(N);
  private readonly k1 = new Float64Array(NK);
  private readonly k2 = new Float64Array(NK);
  private readonly k3 = new Float64Array(NK);
  private readonly k4 = new Float64Array(NK);
  private readonly fz = new Float64Array(4);
  private readonly td = new Float64Array(4);
  private readonly tb = new Float64Array(4);
  private readonly tNet = new Float64Array(4);
  private readonly fxKin = new Float64Array(4);
  /** Stage sums ΣFx, ΣFy, ΣMz, front Mz (a typed array: no loop-carried boxed numbers across the tire calls). */
  private readonly sums = new Float64Array(4);
  private readonly frontAngles = new Float64Array(2);
  private readonly cosW = new Float64Array(4);
  private readonly sinW = new Float64Array(4);
  private readonly cmd: DriverCommand = neutralCommand();
  private contacts!: Readonly<ContactSet>;
  private level_ = true;
  private deltaFrontMean = 0;
  private axPrev = 0;
  private ayPrev = 0;
  /** Substep length [s] of the current step (a field, so the hot calls take no boxed double arguments). */
  private h = 0;
  private clampWarned = new Set<number>();

  constructor(vp: Readonly<VehicleParams>, tires: TireSetup, sp: Readonly<SolverParams>) {
    this.vp = vp;
    this.sp = sp;
    this.drivetrain = new Drivetrain(vp);
    this.loads = new QuasiStaticLoads(vp);
    const a = vp.cgToFront;
    const b = vp.cgToRear;
    this.rx = Float64Array.of(a, a, -b, -b);
    this.ry = Float64Array.of(0.5 * vp.trackFront, -0.5 * vp.trackFront, 0.5 * vp.trackRear, -0.5 * vp.trackRear);
    this.tires = tires.map((tp) => new WheelTire(tp));
    for (let i = 0; i < 4; i++) {
      this.lugre[i] = tires[i].lugre.enabled ? 1 : 0;
      this.combinedByTire[i] = providesCombinedSlip(tires[i]) ? 1 : 0;
      this.rollingRes[i] = tires[i].rollingResistance;
    }
    this.lugreAll = this.lugre.every((v) => v === 1);
    this.lugreAny = this.lugre.some((v) => v === 1);
    this.dragK = 0.5 * AIR_DENSITY * vp.aeroDragCoeff * vp.frontalArea;
    useDoubleFields(this, ['deltaFrontMean', 'axPrev', 'ayPrev', 'h']);
  }

  reset(initial: Readonly<VehicleState>): void {
    this.state.copyFrom(initial);
    this.axPrev = this.ayPrev = 0;
    this.road.vxR = this.road.vyR = 0;
    for (const t of this.tires) t.resetTransient();
    this.diagnostics.clear();
    this.useExternalFz = false;
  }

  /** Supplies the normal loads for the next step (all of its substeps and stages). */
  setExternalFz(fz: ArrayLike<number>): void {
    for (let i = 0; i < 4; i++) this.externalFz[i] = fz[i];
    this.useExternalFz = true;
  }

  step(cmd: Readonly<DriverCommand>, contacts: Readonly<ContactSet>, dt: number): void {
    if (!(dt > 0)) {
      this.useExternalFz = false;
      return;
    }
    copyCommand(this.cmd, cmd);
    this.contacts = contacts;
    this.level_ = contacts.isLevel();
    ackermannAngles(this.vp, this.cmd, this.frontAngles);
    for (let i = 0; i < 4; i++) {
      const d = (i < 2 ? this.frontAngles[i] : 0) + this.toe[i];
      this.cosW[i] = Math.cos(d);
      this.sinW[i] = Math.sin(d);
    }
    this.deltaFrontMean = 0.5 * (this.frontAngles[0] + this.toe[0] + this.frontAngles[1] + this.toe[1]);
    const count = substepCount(this.sp, dt);
    if (substepsClamped(this.sp, dt) && !this.clampWarned.has(dt)) {
      this.clampWarned.add(dt);
      this.warnings.push(`solver: max_substeps=${this.sp.maxSubsteps} cannot deliver max_substep_dt=${this.sp.maxSubstepDt} s at dt=${dt} s; integrating with h=${dt / count} s`);
    }
    this.h = dt / count;
    for (let i = 0; i < 4; i++) {
      this.tires[i].hBristle = this.sp.integrator === 'Euler' ? this.h : 0.25 * this.h;
      this.tires[i].hRelax = this.h;
    }
    const s = this.state;
    const y = this.y;
    y[0] = s.x;
    y[1] = s.y;
    y[2] = s.yaw;
    y[3] = s.vx;
    y[4] = s.vy;
    y[5] = s.yawRate;
    for (let i = 0; i < 4; i++) y[6 + i] = s.wheelSpin[i];
    for (let n = 0; n < count; n++) this.substep();
    s.x = y[0];
    s.y = y[1];
    s.yaw = wrapYaw(y[2]);
    s.vx = y[3];
    s.vy = y[4];
    s.yawRate = y[5];
    for (let i = 0; i < 4; i++) s.wheelSpin[i] = y[6 + i];
    this.diagnostics.ax = this.axPrev;
    this.diagnostics.ay = this.ayPrev;
    this.diagnostics.roll = this.loads.roll;
    this.diagnostics.pitch = this.loads.pitch;
    this.useExternalFz = false;
  }

  private substep(): void {
    const { y, y0, ys, k1, k2, k3, k4, tires, h } = this;
    y0.set(y);
    this.road.vxR = y0[3] * y0[5];
    this.road.vyR = y0[4] * y0[5];
    if (this.sp.integrator === 'Euler') {
      this.derivatives(y0, k1);
      for (let j = 0; j < N; j++) y[j] = y0[j] + h * k1[j];
      this.axPrev = k1[IAX];
      this.ayPrev = k1[IAX + 1];
      if (this.lugreAny) for (let i = 0; i < 4; i++) tires[i].advanceBristle();
      return;
    }
    this.derivatives(y0, k1);
    if (this.lugreAny) for (let i = 0; i < 4; i++) tires[i].advanceBristle();
    for (let j = 0; j < N; j++) ys[j] = y0[j] + 0.5 * h * k1[j];
    this.derivatives(ys, k2);
    if (this.lugreAny) for (let i = 0; i < 4; i++) tires[i].advanceBristle();
    for (let j = 0; j < N; j++) ys[j] = y0[j] + 0.5 * h * k2[j];
    this.derivatives(ys, k3);
    if (this.lugreAny) for (let i = 0; i < 4; i++) tires[i].advanceBristle();
    for (let j = 0; j < N; j++) ys[j] = y0[j] + h * k3[j];
    this.derivatives(ys, k4);
    if (this.lugreAny) for (let i = 0; i < 4; i++) tires[i].advanceBristle();
    const h6 = h / 6;
    for (let j = 0; j < N; j++) y[j] = y0[j] + h6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    this.axPrev = (k1[IAX] + 2 * k2[IAX] + 2 * k3[IAX] + k4[IAX]) / 6;
    this.ayPrev = (k1[IAX + 1] + 2 * k2[IAX + 1] + 2 * k3[IAX + 1] + k4[IAX + 1]) / 6;
    for (let i = 0; i < 4; i++) tires[i].advanceRelaxation();
  }

  /** State derivative of s into out (plus body ax, ay in out[10], out[11]); also refreshes the diagnostics. */
  private derivatives(s: Float64Array, out: Float64Array): void {
    const vp = this.vp;
    const c = this.contacts;
    const cmd = this.cmd;
    const diag = this.diagnostics;
    const fz = this.fz;
    const yaw = s[2];
    const vx = s[3];
    const vy = s[4];
    const r = s[5];
    const m = vp.mass;

    let gx = 0;
    let gy = 0;
    const loads = this.loads;
    if (this.level_) {
      loads.gPerp = c.valid[0] || c.valid[1] || c.valid[2] || c.valid[3] ? GRAVITY : 0;
    } else {
      this.road.update(c, s, 2);
      gx = this.road.gx;
      gy = this.road.gy;
      loads.gPerp = this.road.gPerp;
    }
    loads.axFelt = this.axPrev - gx;
    loads.ayFelt = this.ayPrev - gy;
    loads.vx = vx;
    loads.compute(fz);
    if (this.useExternalFz) fz.set(this.externalFz);
    for (let i = 0; i < 4; i++) if (!c.valid[i]) fz[i] = 0;

    let lambda = 1;
    if (!vp.plantPath && !this.lugreAll) {
      let l = Math.min(1, Math.max(0, Math.sqrt(vx * vx + vy * vy) / STICK_BLEND_SPEED));
      l = l * l * (3 - 2 * l);
      lambda = l;
    }
    const holdGate = vp.plantPath ? 0 : (1 - lambda) * Math.min(1, Math.max(0, cmd.brake - cmd.throttle));

    const { rx, ry, cosW, sinW, tires, fxKin, sums } = this;
    sums.fill(0);
    const R = vp.wheelRadiusNominal;
    for (let i = 0; i < 4; i++) {
      const tire = tires[i];
      if (!c.valid[i]) {
        tire.deactivate();
        fxKin[i] = 0;
        diag.tireFx[i] = diag.tireFy[i] = diag.slipRatio[i] = diag.slipAngle[i] = diag.wheelMu[i] = 0;
        continue;
      }
      const vxb = vx - r * ry[i];
      const vyb = vy + r * rx[i];
      const cw = cosW[i];
      const sw = sinW[i];
      const wvx = vxb * cw + vyb * sw;
      const wvy = -vxb * sw + vyb * cw;
      const muL = c.muLong[i];
      const muT = c.muLat[i];
      const inp = tire.input;
      inp[TIRE_FZ] = fz[i];
      inp[TIRE_VX] = wvx;
      inp[TIRE_VY] = wvy;
      inp[TIRE_OMEGA] = s[6 + i];
      inp[TIRE_GAMMA] = this.camber[i];
      inp[TIRE_MU_LONG] = muL;
      inp[TIRE_MU_LAT] = muT;
      inp[TIRE_R0] = R;
      tire.evaluate();
      const muFz = (muL < muT ? muL : muT) * (fz[i] > 0 ? fz[i] : 0);
      let fxw = 0;
      let fyw = 0;
      let mz = 0;
      let fxd = 0;
      let fyd = 0;
      if (this.lugre[i]) {
        fxw = fxd = tire.Fx;
        fyw = fyd = tire.Fy;
        mz = tire.Mz;
      } else {
        const lam = vp.plantPath ? 1 : lambda;
        let hold = -STICK_HOLD_DAMPING * wvx * holdGate;
        if (Math.abs(hold) > muFz) hold = hold < 0 ? -muFz : muFz;
        fxw = tire.Fx + hold;
        fyw = lam * tire.Fy;
        fxKin[i] = tire.Fx;
        mz = tire.Mz * lam;
        fxd = lam * tire.Fx + hold;
        fyd = fyw;
      }
      if (!this.combinedByTire[i]) {
        const mag = Math.sqrt(fxw * fxw + fyw * fyw);
        if (mag > muFz && mag > 1e-9) {
          const k = muFz / mag;
          fxw *= k;
          fyw *= k;
        }
        const magD = Math.sqrt(fxd * fxd + fyd * fyd);
        if (magD > muFz && magD > 1e-9) {
          const k = muFz / magD;
          fxd *= k;
          fyd *= k;
        }
      }
      if (this.lugre[i]) fxKin[i] = fxw;
      const fbx = fxw * cw - fyw * sw;
      const fby = fxw * sw + fyw * cw;
      sums[0] += fbx;
      sums[1] += fby;
      sums[2] += rx[i] * fby - ry[i] * fbx + mz;
      if (i < 2) sums[3] += mz;
      diag.tireFx[i] = fxd * cw - fyd * sw;
      diag.tireFy[i] = fxd * sw + fyd * cw;
      diag.slipRatio[i] = tire.kappa;
      diag.slipAngle[i] = tire.alpha;
      diag.wheelMu[i] = muL < muT ? muL : muT;
    }
    const fxSum = sums[0];
    const fySum = sums[1];
    const mzSum = sums[2];
    diag.Fz.set(fz);
    diag.rackTorque = sums[3] / Math.max(1e-6, vp.steeringRatio);

    const dt = this.drivetrain;
    dt.driveTorques(cmd, s, 6, this.td);
    dt.brakeTorques(cmd, fz, s, 6, this.tb);

    let fRoll = 0;
    for (let i = 0; i < 4; i++) fRoll += this.rollingRes[i] * fz[i];
    fRoll *= Math.tanh(vx / 0.5);
    const fxTotal = fxSum - this.dragK * vx * Math.abs(vx) - fRoll + m * gx;
    const fyTotal = fySum + m * gy;

    const cy = Math.cos(yaw);
    const sy = Math.sin(yaw);
    out[0] = vx * cy - vy * sy;
    out[1] = vx * sy + vy * cy;
    out[2] = r;
    out[3] = fxTotal / m + vy * r;
    let dvy = fyTotal / m - vx * r;
    let dr = mzSum / vp.inertiaDiag[2];
    if (!this.lugreAll && !vp.plantPath) {
      const rKin = vp.wheelbase > 1e-6 ? (vx * Math.tan(this.deltaFrontMean)) / vp.wheelbase : 0;
      dvy += ((1 - lambda) * (rKin * vp.cgToRear - vy)) / KINEMATIC_TAU;
      dr += ((1 - lambda) * (rKin - r)) / KINEMATIC_TAU;
    }
    out[4] = dvy;
    out[5] = dr;
    out[IAX] = fxTotal / m;
    out[IAX + 1] = fyTotal / m;
    const tNet = this.tNet;
    for (let i = 0; i < 4; i++) tNet[i] = this.td[i] + this.tb[i] - fxKin[i] * tires[i].Re;
    dt.spinAccel(tNet, out, 6);
  }
}
