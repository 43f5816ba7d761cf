/**
 * How a session is timed, as a user writes it: a `time:` block in a scenario YAML, `vils serve --time-*` flags,
 * `vils realtime --time-*` flags. Validated here once, with the key named in every error, and turned into the
 * options of a TimeSession for a given set of in-process asset steps.
 *
 *   time:
 *     mode: realtime | afap | lockstep   default: realtime for a live or real-time session, afap for `vils run` in api mode
 *     dmax_ms: 100                        max skew between any two assets (≥ the largest step; lockstep: = step_ms)
 *     step_ms: 1                          the core step ΔTc (lockstep: every asset's step; default 10 there)
 *     asset_port: 47800                   UDP port for external assets (null or absent: none join)
 *     asset_host: 127.0.0.1               bind address of that port (the protocol has no authentication)
 *     asset_timeout_s: 2                  an external asset silent this long is removed
 *     expect_assets: [name, ...]          afap / lockstep: wait for these to register before time starts
 *     expect_timeout_s: 30                how long to wait for them
 */
import type { ConductorMode } from './conductor.js';
import { MODES, isValidAssetName } from './conductor.js';
import type { TimeSessionOptions } from './session.js';

export interface TimeSettings {
  mode: ConductorMode;
  dmax_ms: number;
  step_ms: number;
  asset_port: number | null;
  asset_host: string;
  asset_timeout_s: number;
  expect_assets: string[];
  expect_timeout_s: number;
}

export const TIME_KEYS = ['mode', 'dmax_ms', 'step_ms', 'asset_port', 'asset_host', 'asset_timeout_s', 'expect_assets', 'expect_timeout_s'] as const;

export const DEFAULT_DMAX_MS = 100;
export const DEFAULT_STEP_MS = 1;
export const DEFAULT_LOCKSTEP_STEP_MS = 10;

export class TimeSettingsError extends Error {
  constructor(readonly key: string, message: string) {
    super(`time.${key}: ${message}`);
    this.name = 'TimeSettingsError';
  }
}

export function defaultTimeSettings(mode: ConductorMode): TimeSettings {
  const step = mode === 'lockstep' ? DEFAULT_LOCKSTEP_STEP_MS : DEFAULT_STEP_MS;
  return { mode, dmax_ms: mode === 'lockstep' ? step : DEFAULT_DMAX_MS, step_ms: step, asset_port: null, asset_host: '127.0.0.1', asset_timeout_s: 2, expect_assets: [], expect_timeout_s: 30 };
}

const toUs = (ms: number) => Math.round(ms * 1000);

/** Reads a `time:` block (plain data, e.g. parsed YAML) over the defaults of `defaultMode`; throws TimeSettingsError. */
export function parseTimeSettings(raw: unknown, defaultMode: ConductorMode): TimeSettings {
  if (raw === undefined || raw === null) return defaultTimeSettings(defaultMode);
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new TimeSettingsError('', `expected a map, got ${JSON.stringify(raw)}`);
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!(TIME_KEYS as readonly string[]).includes(k)) throw new TimeSettingsError(k, `unknown key (expected one of ${TIME_KEYS.join(', ')})`);
  const mode = o.mode ?? defaultMode;
  if (typeof mode !== 'string' || !MODES.includes(mode as ConductorMode)) throw new TimeSettingsError('mode', `expected one of ${MODES.join(', ')}, got ${JSON.stringify(o.mode)}`);
  const s = defaultTimeSettings(mode as ConductorMode);
  const num = (k: keyof TimeSettings, min: number, max: number): number | undefined => {
    const v = o[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw new TimeSettingsError(k, `expected a number in [${min}, ${max}], got ${JSON.stringify(v)}`);
    return v;
  };
  const step = num('step_ms', 0.001, 1000);
  if (step !== undefined) {
    if (Math.abs(step * 1000 - toUs(step)) > 1e-6) throw new TimeSettingsError('step_ms', `must be a whole number of microseconds, got ${step}`);
    s.step_ms = step;
  }
  const dmax = num('dmax_ms', 0.001, 3_600_000);
  if (s.mode === 'lockstep') {
    if (dmax !== undefined && toUs(dmax) !== toUs(s.step_ms)) throw new TimeSettingsError('dmax_ms', `lockstep runs with dmax = step_ms (${s.step_ms} ms), got ${dmax}`);
    s.dmax_ms = s.step_ms;
  } else if (dmax !== undefined) s.dmax_ms = dmax;
  if (toUs(s.dmax_ms) < toUs(s.step_ms)) throw new TimeSettingsError('dmax_ms', `must be at least step_ms (${s.step_ms} ms), got ${s.dmax_ms}`);
  if (o.asset_port !== undefined && o.asset_port !== null) {
    const p = o.asset_port;
    if (typeof p !== 'number' || !Number.isInteger(p) || p < 0 || p > 65535) throw new TimeSettingsError('asset_port', `expected a port 0..65535 (0: any free one) or null, got ${JSON.stringify(p)}`);
    s.asset_port = p;
  }
  if (o.asset_host !== undefined) {
    if (typeof o.asset_host !== 'string' || o.asset_host === '') throw new TimeSettingsError('asset_host', `expected an address, got ${JSON.stringify(o.asset_host)}`);
    s.asset_host = o.asset_host;
  }
  s.asset_timeout_s = num('asset_timeout_s', 0.01, 3600) ?? s.asset_timeout_s;
  s.expect_timeout_s = num('expect_timeout_s', 0, 86_400) ?? s.expect_timeout_s;
  if (o.expect_assets !== undefined && o.expect_assets !== null) {
    const e = o.expect_assets;
    if (!Array.isArray(e) || !e.every((x) => isValidAssetName(x))) throw new TimeSettingsError('expect_assets', `expected a list of asset names, got ${JSON.stringify(e)}`);
    if (e.length > 0 && s.mode === 'realtime') throw new TimeSettingsError('expect_assets', 'realtime never waits for an asset (the wall clock is the master); use afap or lockstep');
    if (e.length > 0 && s.asset_port === null) throw new TimeSettingsError('expect_assets', 'external assets need asset_port');
    s.expect_assets = e as string[];
  }
  return s;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * An in-process asset's own step. In lockstep an asset either takes several of its steps per conductor step
 * (a plant at 5 ms in 10 ms steps), or — `coarse` — is stepped finer than its own step and acts at the
 * multiples of it (the NPC world's policy step every 100 ms, stepped in 10 ms quanta).
 */
export interface NativeStep {
  readonly name: string;
  readonly stepUs: number;
  readonly coarse?: boolean;
}

export interface SessionPlan {
  readonly options: TimeSessionOptions;
  /** the conductor step of each in-process asset, by name */
  readonly assetStepUs: ReadonlyMap<string, number>;
}

/**
 * The TimeSession options for these settings and in-process assets. afap / realtime: each asset keeps its own
 * step, the core step is the gcd of step_ms and every asset step (so each is a multiple of it), and dmax must
 * cover the largest step. lockstep: every asset steps by step_ms, which must be a multiple of each asset's
 * own step (an ego at 5 ms takes two ticks per 10 ms step), or divide it for a coarse asset (the NPC world's
 * 100 ms: no step then jumps over a policy step). Throws TimeSettingsError with the reason.
 */
export function planSession(s: TimeSettings, assets: readonly NativeStep[]): SessionPlan {
  const stepUs = toUs(s.step_ms);
  const dmaxUs = toUs(s.dmax_ms);
  const per = new Map<string, number>();
  if (s.mode === 'lockstep') {
    for (const a of assets) {
      if (a.coarse && a.stepUs % stepUs !== 0) throw new TimeSettingsError('step_ms', `lockstep's step_ms (${s.step_ms} ms) must divide ${a.name}'s step ${a.stepUs / 1000} ms`);
      if (!a.coarse && stepUs % a.stepUs !== 0) throw new TimeSettingsError('step_ms', `lockstep steps every asset by step_ms (${s.step_ms} ms), which must be a multiple of ${a.name}'s own step ${a.stepUs / 1000} ms`);
      per.set(a.name, stepUs);
    }
    return { options: { mode: 'lockstep', coreStepUs: stepUs, assetTimeoutS: s.asset_timeout_s }, assetStepUs: per };
  }
  let core = stepUs;
  for (const a of assets) {
    if (a.stepUs > dmaxUs) throw new TimeSettingsError('dmax_ms', `must be at least every asset's step: ${a.name} steps by ${a.stepUs / 1000} ms, dmax_ms is ${s.dmax_ms}`);
    core = gcd(core, a.stepUs);
    per.set(a.name, a.stepUs);
  }
  return { options: { mode: s.mode, coreStepUs: core, dmaxUs, assetTimeoutS: s.asset_timeout_s }, assetStepUs: per };
}
