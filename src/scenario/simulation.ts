/**
 * The Simulation API (seed 001 §5B, spec §9.1): a scenario file in, a simulation you step from your own code.
 *
 *   const sim = await Simulation.load('configs/experiments/step_steer.yaml');
 *   while (!sim.done()) {
 *     sim.setControl({ steer: 0.02, throttle: 0.2, brake: 0 });   // optional: one step, then the driver resumes
 *     await sim.step();                                            // one plant step (or step(dt))
 *     const gnss = sim.getData('gnss');                            // a sensor's reading at its mount
 *   }
 *   console.log(sim.metrics());                                   // the registry's metrics of the run
 *   writeFileSync('run.csv', sim.csv());                          // VDSim's result columns
 *   await sim.close();
 *
 * `step` is async because a scenario with NPCs runs the ONNX policy every 0.1 s of simulation time; without
 * NPCs it resolves at once. Deterministic: the same scenario (and overrides) gives bit-identical results.
 *
 * Memory: the metrics are running figures over every row (metrics.ts), so they cost the same for any length; each
 * ego's trace holds at most `keepRows` rows (default 2^20, enough for `csv()` of any run whose CSV fits in a
 * string). For longer runs give `csvFile` (the CSV streams to it as the run goes) and a small `keepRows`:
 * `vils run` does so with none held.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DriverCommand } from '../plant/types.js';
import type { VehicleStateSnapshot } from '../plant/state.js';
import { type Scenario, type ScenarioLoadOptions, loadScenario } from './config.js';
import { RunningMetrics, computeMetrics, metricReasons, type MetricContext } from './metrics.js';
import { type SensorData, cgBundle, infraReading, mountedReading } from './sensors.js';
import type { SimEgo } from './sim-ego.js';
import type { AttemptResult } from './story/index.js';
import { ScenarioWorld, type WorldOptions } from './world.js';

export interface SimulationOptions extends ScenarioLoadOptions, WorldOptions {
  /**
   * Trace rows each ego holds in memory (default TRACE_KEEP_ROWS, 2^20: `csv()` of any run whose CSV fits in a
   * string). The metrics see every row whatever this is; `csv()` needs them all held, `csvFile` does not.
   */
  keepRows?: number;
  /** Streams each ego's CSV to this file as the run goes (its bytes are `csv()`'s), so a long run needs no rows held. */
  csvFile?: (egoId: string) => string;
}

/** `state()`: VDSim's dict {t, x, y, yaw, vx, vy, r, ax, ay, Fz, slip_angle, slip_ratio}, plus the full plant state. */
export interface SimState {
  t: number;
  x: number;
  y: number;
  yaw: number;
  vx: number;
  vy: number;
  r: number;
  ax: number;
  ay: number;
  Fz: number[];
  slip_angle: number[];
  slip_ratio: number[];
  steer: number;
  throttle: number;
  brake: number;
  full: VehicleStateSnapshot;
}

export class Simulation {
  /** each ego's running metrics (observing its trace: every row, in fixed memory) */
  private readonly running = new Map<string, RunningMetrics>();

  private constructor(readonly scenario: Scenario, readonly world: ScenarioWorld, opts: SimulationOptions = {}) {
    for (const e of world.egos) {
      if (opts.keepRows !== undefined) e.trace.keepRows = opts.keepRows;
      const m = new RunningMetrics(scenario.map.line);
      e.trace.observe(m);
      this.running.set(e.id, m);
      if (opts.csvFile) e.trace.streamCsv(opts.csvFile(e.id));
    }
  }

  /** Loads a scenario (or a VDSim experiment) file, or takes a loaded Scenario, and builds its world. */
  static async load(scenario: string | Scenario, opts: SimulationOptions = {}): Promise<Simulation> {
    const sc = typeof scenario === 'string' ? await loadScenario(scenario, opts) : scenario;
    return new Simulation(sc, await ScenarioWorld.create(sc, opts), opts);
  }

  /** Simulation time [s]. */
  time(): number {
    return this.world.time;
  }

  /** True once the scenario's duration is reached (never for duration 0), or its story's attempt has ended. */
  done(): boolean {
    return (this.scenario.duration > 0 && this.world.time >= this.scenario.duration - 1e-9) || (this.world.story?.ended ?? false);
  }

  /** The story's attempt (a scenario with `story:`): its result so far, ended at the duration by `run`. */
  storyResult(): AttemptResult | null {
    return this.world.story?.result() ?? null;
  }

  get egos(): readonly SimEgo[] {
    return this.world.egos;
  }

  /** A command for the next step (then the ego's driver resumes); an `external` ego keeps it until the next. */
  setControl(cmd: Readonly<Partial<DriverCommand>>, egoId?: string): void {
    this.world.ego(egoId).setControl(cmd);
  }

  /** Advances by dt [s] (default: the first ego's plant step) and returns the first ego's state. */
  async step(dt?: number): Promise<SimState> {
    const d = dt ?? this.world.egos[0].spec.dt;
    if (!(d > 0)) throw new RangeError(`step: dt must be > 0, got ${d}`);
    await this.world.advanceTo(this.world.time + d);
    return this.state();
  }

  /** Runs to the end of the scenario (its duration) with the egos' own drivers. */
  async run(onProgress?: (t: number) => void): Promise<void> {
    if (!(this.scenario.duration > 0)) throw new RangeError(`${this.scenario.file}: duration 0 runs until stopped; give a duration to run it headless`);
    const chunk = 1;
    while (!this.done()) {
      // a story's end condition ends the run at the policy step it is met
      const step = this.world.story ? 0.1 : chunk;
      await this.world.advanceTo(Math.min(this.scenario.duration, this.world.time + step));
      onProgress?.(this.world.time);
    }
    this.world.story?.finish(this.world.time);
  }

  state(egoId?: string): SimState {
    const e = this.world.ego(egoId);
    const s = e.session;
    const d = s.diagnostics;
    const t = s.truth;
    return {
      t: e.time, x: t.x, y: t.y, yaw: t.yaw, vx: t.vx, vy: t.vy, r: t.yawRate, ax: d.ax, ay: d.ay,
      Fz: [...d.Fz], slip_angle: [...d.slipAngle], slip_ratio: [...d.slipRatio],
      steer: s.applied.steer, throttle: s.applied.throttle, brake: s.applied.brake, full: s.state(),
    };
  }

  /**
   * A sensor's reading: no id → the measured CG bundle {gnss, imu, wheel_speed, steer}; the id of a declared
   * sensor → its reading at its mount; a sensor type (gnss, imu, ...) → the first declared of that type, else
   * the CG value; an infrastructure sensor's id → its object list.
   */
  getData(sensorId?: string, egoId?: string): SensorData {
    const e = this.world.ego(egoId);
    if (sensorId === undefined || sensorId === 'cg') return cgBundle(e);
    const decls = e.spec.sensors.declarations;
    const d = decls.find((x) => x.id === sensorId) ?? decls.find((x) => x.type === sensorId);
    if (d) return mountedReading(e, d, this.world.objects());
    const infra = this.scenario.infra.find((s) => s.id === sensorId);
    if (infra) return infraReading(infra, this.time(), this.world.objects());
    if (['gnss', 'gnss_pos', 'gnss_vel', 'imu', 'imu_accel', 'imu_gyro', 'wheel_speed', 'steer'].includes(sensorId)) {
      return mountedReading(e, { id: sensorId, type: sensorId, mountPos: [0, 0, 0], mountRpy: [0, 0, 0], rateHz: null, params: {} }, []);
    }
    throw new RangeError(`ego ${e.id} has no sensor '${sensorId}' (declared: ${decls.map((x) => x.id).join(', ') || 'none'}; infrastructure: ${this.scenario.infra.map((s) => s.id).join(', ') || 'none'}; or a type: gnss, imu, wheel_speed, steer)`);
  }

  /** The registry's metrics (default: the scenario's list) of one ego's run so far. */
  metrics(names: readonly string[] = this.scenario.metrics, egoId?: string): Record<string, number> {
    return computeMetrics(names, this.metricContext(egoId));
  }

  private metricContext(egoId?: string): MetricContext {
    const e = this.world.ego(egoId);
    return {
      trace: e.trace,
      running: this.running.get(e.id),
      line: this.scenario.map.line,
      vehicle: e.spec.vehicle,
      scene: this.world.scene ? { npcContacts: e.npcContacts, steps: e.sceneSteps, redRuns: e.redRuns } : undefined,
    };
  }

  /**
   * Why each figure of allMetrics() that is not a number could not be computed in this run (keyed as allMetrics
   * keys them): 'lap_time' → 'no lap completed in 30.0 s: …'.
   */
  metricReasons(values: Readonly<Record<string, number>> = this.allMetrics()): Record<string, string> {
    const out: Record<string, string> = {};
    this.world.egos.forEach((e, i) => {
      const prefix = i === 0 ? '' : `${e.id}.`;
      const mine = Object.fromEntries(Object.entries(values).filter(([k]) => (i === 0 ? !k.includes('.') : k.startsWith(prefix))).map(([k, v]) => [k.slice(prefix.length), v]));
      for (const [k, why] of Object.entries(metricReasons(mine, this.metricContext(e.id)))) out[prefix + k] = why;
    });
    return out;
  }

  /** One ego's running figures (every row of its trace so far, in fixed memory; see metrics.ts). */
  runningMetrics(egoId?: string): RunningMetrics {
    return this.running.get(this.world.ego(egoId).id)!;
  }

  /** Metrics of every ego: the first ego's under their names, the others' as `<ego id>.<name>`. */
  allMetrics(names: readonly string[] = this.scenario.metrics): Record<string, number> {
    const out: Record<string, number> = {};
    this.world.egos.forEach((e, i) => {
      for (const [k, v] of Object.entries(this.metrics(names, e.id))) out[i === 0 ? k : `${e.id}.${k}`] = v;
    });
    return out;
  }

  /** The ego's per-tick record in VDSim's columns (spec §9.3); refused once it holds fewer rows than it has (`keepRows`). */
  csv(egoId?: string): string {
    return this.world.ego(egoId).trace.toCsv();
  }

  /** Writes the ego's CSV (a copy of the streamed file when there is one: every row, however many). */
  writeCsv(path: string, egoId?: string): void {
    const tr = this.world.ego(egoId).trace;
    const streamed = tr.csvPath;
    if (streamed) {
      tr.flush();
      if (resolve(streamed) !== resolve(path)) copyFileSync(streamed, path);
    } else writeFileSync(path, tr.toCsv());
  }

  /** Writes what is buffered to the streamed CSV files (`csvFile`). */
  flush(): void {
    for (const e of this.world.egos) e.trace.flush();
  }

  /** Back to time 0 (egos at their starts, NPCs respawned from the seed, traces cleared). */
  reset(): void {
    this.world.reset();
  }

  async close(): Promise<void> {
    for (const e of this.world.egos) e.trace.closeCsv();
    await this.world.close();
  }
}
