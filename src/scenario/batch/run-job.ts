/**
 * One run of a campaign, the same wherever it runs (a worker thread, a BullMQ worker on another machine): load
 * the scenario with the run's overrides, run it headless to its duration, and return the registry's metrics,
 * each ego's CSV and the resolved scenario YAML as text. A failure is returned as a result, never thrown.
 */
import { stringify } from 'yaml';
import { resolvePolicyModel } from '../../policy/model-files.js';
import { PolicySession } from '../../policy/session.js';
import { loadScenario } from '../config.js';
import { Simulation } from '../simulation.js';
import type { AttemptResult } from '../story/index.js';
import type { EgoLimits, TraceJson } from '../story/report/index.js';
import { type RunJob, localPath } from './campaign.js';

export interface RunResult {
  runId: string;
  index: number;
  status: 'ok' | 'failed';
  error: string | null;
  overrides: Record<string, unknown>;
  metrics: Record<string, number>;
  /** ego id → CSV text */
  csv: Record<string, string>;
  resolvedYaml: string;
  simTimeS: number;
  wallS: number;
  /** a test case's attempt (its `story:`): the verdict and the series its report plots; null without a story */
  attempt?: { result: AttemptResult; trace: TraceJson } | null;
  /** each simulated ego's own limits (its vehicle's full brake, its autopilot's standstill gap): the reports explain rows that read the same by them */
  limits?: EgoLimits[];
}

let policy: Promise<PolicySession> | null = null;

/** The policy, loaded once per thread or process and shared by its runs (each scene forks it). */
function sharedPolicy(): Promise<PolicySession> {
  policy ??= PolicySession.load(resolvePolicyModel({}), { intraOpThreads: 1 });
  return policy;
}

export async function runJob(job: RunJob): Promise<RunResult> {
  const t0 = performance.now();
  const base = { runId: job.runId, index: job.index, overrides: job.overrides };
  let sim: Simulation | null = null;
  try {
    const scenario = await loadScenario(localPath(job.scenario), { overrides: job.overrides });
    sim = await Simulation.load(scenario, { policy: scenario.npcs > 0 ? await sharedPolicy() : undefined });
    await sim.run();
    const names = job.metrics ?? scenario.metrics;
    const csv: Record<string, string> = {};
    for (const e of sim.egos) csv[e.id] = sim.csv(e.id);
    const story = sim.world.story;
    // as JSON carries it (Infinity as null), so a run's record is the same from a thread or a queue worker
    const attempt = story ? JSON.parse(JSON.stringify({ result: story.result(), trace: story.trace.toJSON() }, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))) as RunResult['attempt'] : null;
    const limits = sim.egos.map((e): EgoLimits => ({
      ego: e.id,
      full_brake_mps2: e.spec.vehicle.maxBrakeTorque / (e.spec.vehicle.wheelRadiusNominal * e.spec.vehicle.mass),
      min_gap_m: e.spec.driver.kind === 'autopilot' ? e.spec.driver.autopilot.minGapM : null,
    }));
    return { ...base, status: 'ok', error: null, metrics: sim.allMetrics(names), csv, resolvedYaml: stringify(scenario.resolved), simTimeS: sim.time(), wallS: (performance.now() - t0) / 1000, attempt, limits };
  } catch (err) {
    return { ...base, status: 'failed', error: (err as Error).message ?? String(err), metrics: {}, csv: {}, resolvedYaml: '', simTimeS: sim?.time() ?? 0, wallS: (performance.now() - t0) / 1000 };
  } finally {
    await sim?.close();
  }
}
