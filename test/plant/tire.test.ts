import { describe, expect, it } from 'vitest';
import { WheelTire, linearTire, magicFormula, mf96, tireParams } from '../../src/plant/index.js';
import { effectiveMu, forceLawInput, forceLawOutput } from '../../src/plant/tire/force-law.js';
import { advanceBristle, breakawayLat, lugreForce, lugreSigma1 } from '../../src/plant/tire/lugre.js';
import { TIRE_FZ, TIRE_MU_LAT, TIRE_MU_LONG, TIRE_OMEGA, TIRE_R0, TIRE_VX, TIRE_VY } from '../../src/plant/tire/wheel-tire.js';

function law(fz: number, kappa: number, alpha: number, mu = 1, gamma = 0): Float64Array {
  const v = forceLawInput();
  v.set([fz, kappa, alpha, mu, mu, gamma]);
  return v;
}

describe('MF96 (spec §7.3)', () => {
  const tp = tireParams({ lugre: { enabled: false } });
  it('pure slip at Fz = 4000 N, μ = 1: F = D·sin(C·atan(B·s − E·(B·s − atan(B·s))))', () => {
    expect(magicFormula(8, 1.3, 4000, -1, 0.05)).toBeCloseTo(1974.8605, 3);
    const lat = mf96(tp, law(4000, 0, 0.05), forceLawOutput());
    expect(lat.Fy).toBeCloseTo(-1974.8605, 3); // Fy opposes the slip angle
    expect(lat.Fx).toBe(0);
    expect(lat.Mz).toBeCloseTo(-0.05 / Math.sqrt(1 + 0.0625) * lat.Fy, 6); // Mz = −t(α)·Fy
    expect(mf96(tp, law(4000, 0.05, 0), forceLawOutput()).Fx).toBeCloseTo(2630.9765, 3);
  });
  it('linear cornering stiffness ≈ B·C·D·Fz·μ = 10.4·Fz (42.5 kN/rad at 4086 N)', () => {
    const a = 1e-5;
    expect(-mf96(tp, law(4086.1, 0, a), forceLawOutput()).Fy / a).toBeCloseTo(10.4 * 4086.1, -1);
  });
  it('combined slip scales both forces onto the friction ellipse', () => {
    const out = mf96(tp, law(4000, 0.1, 0.1), forceLawOutput());
    expect(out.Fx).toBeCloseTo(2938.487, 2);
    expect(out.Fy).toBeCloseTo(-2713.907, 2);
    expect((out.Fx / 4000) ** 2 + (out.Fy / 4000) ** 2).toBeCloseTo(1, 9);
    const off = mf96(tireParams({ combinedSlipEnabled: false }), law(4000, 0.1, 0.1), forceLawOutput());
    expect([off.Fx, off.Fy].map((v) => Math.round(v))).toEqual([3574, -3301]);
  });
  it('load sensitivity μ_eff = max(0.3·μ, μ·(1 − ls·(Fz/Fz_nom − 1))); friction scales D; Fz < 1 N gives nothing', () => {
    const ls = tireParams({ loadSensitivity: 0.15 });
    expect(effectiveMu(ls, 8000)).toBeCloseTo(0.85, 12);
    expect(effectiveMu(ls, 4000 * 10)).toBeCloseTo(0.3, 12);
    const lowMu = mf96(tp, law(4000, 0, 0.05, 0.5), forceLawOutput());
    expect(lowMu.Fy).toBeCloseTo(-magicFormula(8, 1.3, 2000, -1, 0.05), 6);
    expect(mf96(tp, law(0.5, 0.1, 0.1), forceLawOutput())).toEqual({ Fx: 0, Fy: 0, Mz: 0, muPeak: 0 });
  });
  it('camber thrust +C_γ·γ·Fz·μ in the +y direction', () => {
    const out = mf96(tireParams({ camberStiffness: 1.0 }), law(4000, 0, 0, 1, 0.02), forceLawOutput());
    expect(out.Fy).toBeCloseTo(80, 9);
  });
});

describe('linear tire', () => {
  it('Fx = 2·Cα·κ·μ, Fy = −Cα·α·μ, no aligning moment', () => {
    const out = linearTire(tireParams({ backend: 'linear' }), law(4000, 0.01, 0.02, 0.8), forceLawOutput());
    expect([out.Fx, out.Fy, out.Mz]).toEqual([2 * 80000 * 0.01 * 0.8, -80000 * 0.02 * 0.8, 0]);
  });
});

describe('LuGre layer (spec §7.4)', () => {
  it('σ1 defaults to the critical 2·√(σ0·m_eff) = 3794.7 N s/m', () => {
    expect(lugreSigma1({ enabled: true, sigma0: 9e4, sigma1: 0, sigma2: 75, mEff: 40 })).toBeCloseTo(3794.733, 3);
    expect(lugreSigma1({ enabled: true, sigma0: 9e4, sigma1: 500, sigma2: 75, mEff: 40 })).toBe(500);
  });
  it('lateral breakaway g = max(|Fy_MF|, exp(−(α/0.03)²)·μ·Fz, 1)', () => {
    expect(breakawayLat(100, 4000, 1, 0)).toBe(4000);
    expect(breakawayLat(100, 4000, 1, 0.03)).toBeCloseTo(4000 * Math.exp(-1), 9);
    expect(breakawayLat(3000, 4000, 1, 0.2)).toBe(3000);
    expect(breakawayLat(0, 0, 1, 0.2)).toBe(1);
  });
  it('force σ0·z + σ1·ż + σ2·v with ż = v − σ0·|v|/g·z; steady state g·sign(v) + σ2·v', () => {
    const g = 2000;
    const zSs = g / 9e4;
    expect(lugreForce(zSs, 0.5, g, 9e4, 3794.7, 75)).toBeCloseTo(g + 75 * 0.5, 9);
    expect(lugreForce(0, 0.5, g, 9e4, 3794.7, 75)).toBeCloseTo(3794.7 * 0.5 + 75 * 0.5, 9);
  });
  it('bristle update z ← (z + h·v)/(1 + h·σ0·|v|/g), clamped to ±g/σ0', () => {
    expect(advanceBristle(0, 1, 2000, 9e4, 1e-3)).toBeCloseTo(1e-3 / (1 + (1e-3 * 9e4) / 2000), 15);
    expect(advanceBristle(1, 0, 2000, 9e4, 1e-3)).toBe(2000 / 9e4);
    expect(advanceBristle(-1, 0, 2000, 9e4, 1e-3)).toBe(-2000 / 9e4);
  });
  it('a wheel held at constant slip converges to the MF force plus the viscous term', () => {
    const tire = new WheelTire(tireParams());
    const inp = tire.input;
    const vx = 20;
    const alpha = 0.08;
    inp[TIRE_FZ] = 4000;
    inp[TIRE_VX] = vx;
    inp[TIRE_VY] = vx * Math.tan(alpha);
    inp[TIRE_OMEGA] = vx / 0.32;
    inp[TIRE_MU_LONG] = inp[TIRE_MU_LAT] = 1;
    inp[TIRE_R0] = 0.32;
    tire.hBristle = 0.25e-3;
    for (let i = 0; i < 4000; i++) {
      tire.evaluate();
      tire.advanceBristle();
    }
    tire.evaluate();
    const mfFy = -magicFormula(8, 1.3, 4000, -1, alpha);
    expect(tire.alpha).toBeCloseTo(alpha, 12);
    expect(tire.kappa).toBeCloseTo(0, 12);
    expect(tire.Fy).toBeCloseTo(mfFy - 75 * vx * Math.tan(alpha), 0);
    expect(tire.Mz).toBeCloseTo(-(0.05 / Math.sqrt(1 + (alpha / 0.2) ** 2)) * tire.Fy, 6);
  });
  it('relaxation length lags the slip angle with exp(−|Vx|·h/σ) (non-LuGre path)', () => {
    const tire = new WheelTire(tireParams({ lugre: { enabled: false }, relaxationLengthLat: 0.5 }));
    const inp = tire.input;
    inp.set([4000, 10, 1, 10 / 0.32, 0, 1, 1, 0.32]);
    tire.hRelax = 0.01;
    tire.evaluate();
    expect(tire.Fy).toBe(0); // α_dyn starts at 0
    tire.advanceRelaxation();
    const a = Math.atan2(1, 10);
    expect(tire.alphaDyn).toBeCloseTo(a * (1 - Math.exp((-10 * 0.01) / 0.5)), 12);
  });
});
