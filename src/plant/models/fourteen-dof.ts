/**
 * L3 "14-DOF" model (port of VDSim fourteen_dof_dynamics): the L2 planar model plus sprung heave z_s, roll φ,
 * pitch θ and four unsprung heights z_u, small-angle linearised about static equilibrium. Corner deflection
 * δ_i = z_s + r_y,i·φ − r_x,i·θ − z_u,i; spring/damper −k·δ − c·δ̇; anti-roll bars add K_arb/track² on the
 * left-right difference; m_s·z̈_s = ΣF, Ixx·φ̈ = Σr_y·F + m_s·a_y·h, Iyy·θ̈ = −Σr_x·F − m_s·a_x·h·(1 − anti).
 * The planar model's grip loads come from the tire springs: Fz_i = max(0, static·(normal accel/g) + aero +
 * k_tire·(road_dz − z_u,i)). Departure from VDSim: those loads are used by every RK stage of the step (VDSim
 * hands them to the first stage only, a defect it documents).
 */
import type { ContactSet } from '../contact.js';
import { type SolverParams, substepCount } from '../params/solver.js';
import type { TireSetup } from '../params/tire.js';
import type { VehicleParams } from '../params/vehicle.js';
import { VehicleState } from '../state.js';
import { AIR_DENSITY, type DriverCommand, GRAVITY, type Level } from '../types.js';
import { useDoubleFields } from '../double-fields.js';
import { PlantDiagnostics, type VehicleModel } from './model.js';
import { SevenDofModel } from './seven-dof.js';

const N = 14; // z, ż, φ, φ̇, θ, θ̇, z_u×4, ż_u×4
const ZU = 6;
const ZUD = 10;

export class FourteenDofModel implements VehicleModel {
  readonly level: Level = 'L3';
  readonly state = new VehicleState();
  readonly diagnostics = new PlantDiagnostics();
  readonly inner: SevenDofModel;
  private readonly vp: Readonly<VehicleParams>;
  private readonly sp: Readonly<SolverParams>;
  private readonly rx: Float64Array;
  private readonly ry: Float64Array;
  private readonly springK = new Float64Array(4);
  private readonly damperC = new Float64Array(4);
  private readonly unsprungM = new Float64Array(4);
  private readonly tireK = new Float64Array(4);
  private readonly staticCompression = new Float64Array(4);
  private readonly arbFront: number;
  private readonly arbRear: number;
  private readonly y = new Float64Array(N);
  private readonly ys = new Float64Array(N);
  private readonly y0 = new Float64Array(N);
  private readonly k1 = new Float64Array(N);
  private readonly k2 = new Float64Array(N);
  private readonly k3 = new Float64Array(N);
  private readonly k4 = new Float64Array(N);
  private readonly fzDyn = new Float64Array(4);
  private readonly force = new Float64Array(4);
  private readonly roadDz = new Float64Array(4);
  private readonly contactValid = new Uint8Array(4);
  private ax = 0;
  private ay = 0;
  private overturning = 0;

  constructor(vp: Readonly<VehicleParams>, tires: TireSetup, sp: Readonly<SolverParams>) {
    this.vp = vp;
    this.sp = sp;
    this.inner = new SevenDofModel(vp, tires, sp);
    const a = vp.cgToFront;
    const b = vp.cgToRear;
    this.rx = Float64Array.of(a, a, -b, -b);
    this.ry = Float64Array.of(0.5 * vp.trackFront, -0.5 * vp.trackFront, 0.5 * vp.trackRear, -0.5 * vp.trackRear);
    for (let i = 0; i < 4; i++) {
      this.springK[i] = Math.max(1, vp.springStiffness[i]);
      this.damperC[i] = Math.max(0, vp.damperCoefficient[i]);
      this.unsprungM[i] = Math.max(1, vp.unsprungMass[i]);
      this.tireK[i] = Math.max(1, tires[i].tireVerticalStiffness);
      const fzStatic = (vp.massSprung * GRAVITY * (i < 2 ? b : a)) / (2 * vp.wheelbase);
      this.staticCompression[i] = fzStatic / this.springK[i];
    }
    this.arbFront = Math.max(0, vp.arbStiffnessFront) / Math.max(1e-3, vp.trackFront) ** 2;
    this.arbRear = Math.max(0, vp.arbStiffnessRear) / Math.max(1e-3, vp.trackRear) ** 2;
    useDoubleFields(this, ['ax', 'ay', 'overturning']);
  }

  get warnings(): readonly string[] {
    return this.inner.warnings;
  }

  reset(initial: Readonly<VehicleState>): void {
    this.state.copyFrom(initial);
    this.state.roll = this.state.pitch = this.state.rollRate = this.state.pitchRate = 0;
    for (let i = 0; i < 4; i++) {
      this.state.suspCompression[i] = this.staticCompression[i];
      this.state.suspVelocity[i] = 0;
    }
    this.inner.reset(this.state);
    this.y.fill(0);
    this.ax = this.ay = 0;
    this.roadDz.fill(0);
    this.contactValid.fill(1);
    this.diagnostics.clear();
  }

  step(cmd: Readonly<DriverCommand>, contacts: Readonly<ContactSet>, dt: number): void {
    if (!(dt > 0)) return;
    const vp = this.vp;
    const y = this.y;
    const s = this.state;
    const kCam = vp.camberPerRoll;
    const phi = y[2];
    this.inner.camber[0] = kCam * phi;
    this.inner.camber[1] = -kCam * phi;
    this.inner.camber[2] = kCam * phi;
    this.inner.camber[3] = -kCam * phi;

    // grip loads from the tire springs, fixed over the step
    const q = 0.5 * AIR_DENSITY * vp.frontalArea * s.vx * Math.abs(s.vx);
    const staticF = (vp.mass * GRAVITY * vp.cgToRear) / (2 * vp.wheelbase);
    const staticR = (vp.mass * GRAVITY * vp.cgToFront) / (2 * vp.wheelbase);
    const cy = Math.cos(s.yaw);
    const sy = Math.sin(s.yaw);
    for (let i = 0; i < 4; i++) {
      const nx = contacts.normal[3 * i];
      const ny = contacts.normal[3 * i + 1];
      const nz = contacts.normal[3 * i + 2];
      const nn = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (!contacts.valid[i] || !(nn > 1e-12) || !Number.isFinite(nn)) {
        this.fzDyn[i] = 0;
        continue;
      }
      const nyBody = (-sy * nx + cy * ny) / nn;
      const normalAccel = Math.max(0, GRAVITY * Math.max(0, nz / nn) + s.vx * s.yawRate * nyBody);
      const st = (i < 2 ? staticF : staticR) * (normalAccel / GRAVITY) + 0.5 * (i < 2 ? vp.aeroLiftFront : vp.aeroLiftRear) * q;
      this.fzDyn[i] = Math.max(0, st + this.tireK[i] * (contacts.roadDz[i] - y[ZU + i]));
    }
    this.inner.setExternalFz(this.fzDyn);
    this.inner.step(cmd, contacts, dt);

    const is = this.inner.state;
    s.x = is.x;
    s.y = is.y;
    s.yaw = is.yaw;
    s.vx = is.vx;
    s.vy = is.vy;
    s.yawRate = is.yawRate;
    s.wheelSpin.set(is.wheelSpin);
    for (let i = 0; i < 4; i++) {
      this.contactValid[i] = contacts.valid[i];
      if (contacts.valid[i]) this.roadDz[i] = contacts.roadDz[i];
    }
    let mx = 0;
    for (let i = 0; i < 4; i++) mx += this.inner.tires[i].Mx;
    this.overturning = mx;
    this.ax = this.inner.diagnostics.ax;
    this.ay = this.inner.diagnostics.ay;
    this.integrateVertical(dt);
    this.writePose();
    this.diagnostics.copyFrom(this.inner.diagnostics);
    this.diagnostics.roll = y[2];
    this.diagnostics.pitch = y[4];
  }

  private integrateVertical(dt: number): void {
    const count = substepCount(this.sp, dt);
    const h = dt / count;
    const { y, y0, ys, k1, k2, k3, k4 } = this;
    for (let n = 0; n < count; n++) {
      y0.set(y);
      this.derivatives(y0, k1);
      for (let j = 0; j < N; j++) ys[j] = y0[j] + 0.5 * h * k1[j];
      this.derivatives(ys, k2);
      for (let j = 0; j < N; j++) ys[j] = y0[j] + 0.5 * h * k2[j];
      this.derivatives(ys, k3);
      for (let j = 0; j < N; j++) ys[j] = y0[j] + h * k3[j];
      this.derivatives(ys, k4);
      const h6 = h / 6;
      for (let j = 0; j < N; j++) y[j] = y0[j] + h6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    }
  }

  private derivatives(s: Float64Array, out: Float64Array): void {
    const vp = this.vp;
    const { rx, ry, force } = this;
    const z = s[0];
    const zd = s[1];
    const phi = s[2];
    const phid = s[3];
    const th = s[4];
    const thd = s[5];
    for (let i = 0; i < 4; i++) {
      const delta = z + ry[i] * phi - rx[i] * th - s[ZU + i];
      const vel = zd + ry[i] * phid - rx[i] * thd - s[ZUD + i];
      force[i] = -this.springK[i] * delta - this.damperC[i] * vel;
    }
    // anti-roll bars: a force pair on the left-right deflection difference
    const dFront = (z + ry[0] * phi - rx[0] * th - s[ZU]) - (z + ry[1] * phi - rx[1] * th - s[ZU + 1]);
    const dRear = (z + ry[2] * phi - rx[2] * th - s[ZU + 2]) - (z + ry[3] * phi - rx[3] * th - s[ZU + 3]);
    force[0] -= this.arbFront * dFront;
    force[1] += this.arbFront * dFront;
    force[2] -= this.arbRear * dRear;
    force[3] += this.arbRear * dRear;
    let fzSum = 0;
    let mPitch = 0;
    let mRoll = 0;
    for (let i = 0; i < 4; i++) {
      fzSum += force[i];
      mPitch -= rx[i] * force[i];
      mRoll += ry[i] * force[i];
    }
    const ms = vp.massSprung;
    const h = vp.cgHeight;
    const anti = this.ax < 0 ? vp.antiDiveFront : vp.antiSquatRear;
    out[0] = zd;
    out[1] = fzSum / Math.max(1, ms);
    out[2] = phid;
    out[3] = (mRoll + ms * this.ay * h + this.overturning) / Math.max(1e-3, vp.inertiaDiag[0]);
    out[4] = thd;
    out[5] = (mPitch - ms * this.ax * h * (1 - anti)) / Math.max(1e-3, vp.inertiaDiag[1]);
    for (let i = 0; i < 4; i++) {
      const road = this.contactValid[i] ? this.tireK[i] * (s[ZU + i] - this.roadDz[i]) : 0;
      out[ZU + i] = s[ZUD + i];
      out[ZUD + i] = (-force[i] - road) / this.unsprungM[i];
    }
  }

  private writePose(): void {
    const { y, rx, ry } = this;
    const s = this.state;
    s.z = y[0];
    s.vz = y[1];
    s.roll = y[2];
    s.rollRate = y[3];
    s.pitch = y[4];
    s.pitchRate = y[5];
    for (let i = 0; i < 4; i++) {
      const delta = y[0] + ry[i] * y[2] - rx[i] * y[4] - y[ZU + i];
      const rel = y[1] + ry[i] * y[3] - rx[i] * y[5] - y[ZUD + i];
      s.suspCompression[i] = this.staticCompression[i] - delta;
      s.suspVelocity[i] = -rel;
    }
  }
}
