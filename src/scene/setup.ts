/**
 * The one set-up chain every entry point uses (`vils serve`, `vils drive`, the benchmarks, tests):
 * map file → origin → geo frame → policy → live scene.
 */
import { join } from 'node:path';
import { FMTC_ORIGIN, GeoFrame, type LatLon } from '../geo/frame.js';
import { loadMapFile, type LoadedMap } from '../map/scene-json.js';
import { resolvePolicyModel } from '../policy/model-files.js';
import { PolicySession, type ActionMode } from '../policy/session.js';
import { projectRoot } from '../util/project-root.js';
import type { SceneConfig } from './config.js';
import type { SignalPlanOverride } from './traffic-control.js';
import { LiveScene } from './scene.js';

export const DEFAULT_MAP = 'maps/demo-track.json';

export function defaultMapPath(): string {
  return join(projectRoot(), DEFAULT_MAP);
}

export interface SceneSetupOptions {
  mapPath?: string;
  /** an ONNX model; default: the project's model (built from the default checkpoint when missing) */
  modelPath?: string;
  /** share an already loaded model (the scene gets its own buffers: `fork`) */
  policy?: PolicySession;
  /** default: the map's origin, else FMTC */
  origin?: LatLon;
  config?: Partial<SceneConfig>;
  intraOpThreads?: number;
  /**
   * the policy on a thread of its own, the shield's prediction done meanwhile (PolicySessionOptions.thread;
   * default true; a `policy` given keeps its own)
   */
  inferenceThread?: boolean;
  mode?: ActionMode;
  /** plan changes by junction, and signals on every junction (a scenario's `signals:`) */
  signals?: { plans?: readonly SignalPlanOverride[]; all?: boolean; actuated?: boolean };
  /** the NPC step's reference computation instead of its shortcuts (EngineOptions.reference; tests only) */
  reference?: boolean;
}

export interface SceneSetup {
  map: LoadedMap;
  geo: GeoFrame;
  policy: PolicySession;
  scene: LiveScene;
  /** releases the scene's policy session */
  release(): Promise<void>;
}

export async function setupScene(opts: SceneSetupOptions = {}): Promise<SceneSetup> {
  const map = loadMapFile(opts.mapPath ?? defaultMapPath());
  const origin = opts.origin ?? map.mapMetadata?.origin ?? FMTC_ORIGIN;
  const geo = new GeoFrame({ lat: origin.lat, lon: origin.lon });
  const policy = opts.policy
    ? opts.policy.fork(opts.mode)
    : await PolicySession.load(resolvePolicyModel({ model: opts.modelPath }), { intraOpThreads: opts.intraOpThreads ?? 1, mode: opts.mode, thread: opts.inferenceThread ?? true });
  const scene = new LiveScene(map, policy, opts.config, { signalPlans: opts.signals?.plans, signalAll: opts.signals?.all, signalsActuated: opts.signals?.actuated, reference: opts.reference });
  return { map, geo, policy, scene, release: () => policy.release() };
}
