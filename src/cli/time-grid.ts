/**
 * `vils time-grid [--json] [--out <svg>]`: the Hakoniwa time-synchronisation grid (../shared/spec/time-sync.md):
 * dmax ∈ {10, 20, 40, 80, 100} ms × {1, 2, 4, 8, 10} assets, ΔT 10 ms, 1,000 steps, 10 samples per cell,
 * the assets as worker threads sharing their times with the conductor (src/time/asset-shm.ts). Per cell:
 * violations of (a.2)/(c.2)/(a.5) (must be 0), mean, std and max of Tc − Ti, wall time. Two core schedules:
 * greedy (Hakoniwa's: the core counts up whenever the rule lets it) and paced (Tc follows the clock at --speed).
 */
import { writeOutputFile } from '../util/output-file.js';
import { parseArgs } from 'node:util';
import { type ChartPanel, renderChartDocument } from '../plant/plot/svg-chart.js';
import { type ShmSample, runShmCell } from '../time/asset-shm.js';
import { type Command, UsageError } from './commands.js';

const USAGE =
  'vils time-grid [--json] [--out <svg>] [--schedule greedy|paced|both] [--speed 10] [--work-us 50] [--steps 1000] [--samples 10] [--step-ms 10] [--dmax-ms 10,20,40,80,100] [--assets 1,2,4,8,10]';

export type Schedule = 'greedy' | 'paced';

export interface GridCell {
  schedule: Schedule;
  dmaxMs: number;
  assets: number;
  samples: number;
  violations: number;
  checks: number;
  /** Tc − Ti pooled over assets, count-ups and samples [ms]. */
  skewMeanMs: number;
  skewStdMs: number;
  skewMaxMs: number;
  /** Standard deviation of Tc − Ti of the sample with the largest one [ms]. */
  skewStdWorstSampleMs: number;
  wallSMean: number;
  wallSTotal: number;
  /** Simulated seconds per wall second. */
  speedup: number;
  coreRetainedMean: number;
}

export interface GridConfig {
  schedules: Schedule[];
  dmaxMs: number[];
  assets: number[];
  stepMs: number;
  steps: number;
  samples: number;
  workUs: number;
  speed: number;
}

function numberList(s: string, what: string, min: number, max: number, integer: boolean): number[] {
  const v = s.split(',').map((x) => Number(x.trim()));
  if (v.length === 0 || v.some((x) => !Number.isFinite(x) || x < min || x > max || (integer && !Number.isInteger(x)))) throw new UsageError(`${what} must be a comma-separated list of numbers in [${min}, ${max}], got ${s}`);
  return v;
}

function num(s: string, what: string, min: number, max: number, integer = false): number {
  return numberList(s, what, min, max, integer)[0];
}

function cellOf(schedule: Schedule, dmaxMs: number, assets: number, cfg: GridConfig, samples: ShmSample[]): GridCell {
  let n = 0;
  let s1 = 0;
  let s2 = 0;
  for (const s of samples) {
    n += s.skewN;
    s1 += s.skewMeanUs * s.skewN;
    s2 += (s.skewStdUs ** 2 + s.skewMeanUs ** 2) * s.skewN;
  }
  const mean = n > 0 ? s1 / n : 0;
  const wall = samples.reduce((a, s) => a + s.wallS, 0);
  return {
    schedule,
    dmaxMs,
    assets,
    samples: samples.length,
    violations: samples.reduce((a, s) => a + s.violations, 0),
    checks: samples.reduce((a, s) => a + s.checks, 0),
    skewMeanMs: mean / 1000,
    skewStdMs: (n > 0 ? Math.sqrt(Math.max(0, s2 / n - mean * mean)) : 0) / 1000,
    skewMaxMs: Math.max(0, ...samples.map((s) => s.skewMaxUs)) / 1000,
    skewStdWorstSampleMs: Math.max(0, ...samples.map((s) => s.skewStdUs)) / 1000,
    wallSMean: wall / samples.length,
    wallSTotal: wall,
    speedup: (cfg.steps * cfg.stepMs) / 1000 / (wall / samples.length),
    coreRetainedMean: samples.reduce((a, s) => a + s.coreRetained, 0) / samples.length,
  };
}

/** Runs the grid; `progress` is told about every finished cell. */
export async function runTimeGrid(cfg: GridConfig, progress?: (c: GridCell) => void): Promise<GridCell[]> {
  const cells: GridCell[] = [];
  for (const schedule of cfg.schedules) {
    for (const assets of cfg.assets) {
      for (const dmaxMs of cfg.dmaxMs) {
        const samples = await runShmCell({
          assets, dmaxUs: Math.round(dmaxMs * 1000), stepUs: Math.round(cfg.stepMs * 1000), steps: cfg.steps, samples: cfg.samples, workUs: cfg.workUs,
          speed: schedule === 'greedy' ? Infinity : cfg.speed,
        });
        const cell = cellOf(schedule, dmaxMs, assets, cfg, samples);
        cells.push(cell);
        progress?.(cell);
      }
    }
  }
  return cells;
}

const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];

export function gridSvg(cells: GridCell[], cfg: GridConfig): string {
  const panel = (schedule: Schedule): ChartPanel => ({
    title: schedule === 'greedy' ? "greedy core (Hakoniwa's conductor)" : `paced core (one count-up per tick, ×${cfg.speed})`,
    xLabel: 'dmax [ms]',
    yLabel: 'std(Tc − Ti) [ms]',
    series: cfg.assets.map((n, k) => ({
      label: `${n} asset${n === 1 ? '' : 's'}`,
      color: COLORS[k % COLORS.length],
      x: cfg.dmaxMs,
      y: cfg.dmaxMs.map((d) => cells.find((c) => c.schedule === schedule && c.assets === n && c.dmaxMs === d)?.skewStdMs ?? NaN),
    })),
    references: [
      { y: 5, label: 'goal 5 ms', color: '#2a2' },
      { y: 30, label: 'Hakoniwa ~30 ms', color: '#a22' },
    ],
    heightPx: 320,
  });
  return renderChartDocument({
    title: 'std of Tc − Ti against dmax',
    subtitle: `ΔT ${cfg.stepMs} ms, ${cfg.steps} steps, ${cfg.samples} samples per point; worker-thread assets with ${cfg.workUs} µs of work per step`,
    widthPx: 900,
    panels: cfg.schedules.map(panel),
  });
}

export function gridTable(cells: GridCell[]): string[] {
  const lines = ['| schedule | dmax [ms] | assets | violations | mean Tc−Ti [ms] | std [ms] | max [ms] | wall per run [s] | ×real time |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const c of cells) {
    lines.push(
      `| ${c.schedule} | ${c.dmaxMs} | ${c.assets} | ${c.violations} | ${c.skewMeanMs.toFixed(1)} | ${c.skewStdMs.toFixed(2)} | ${c.skewMaxMs.toFixed(0)} | ${c.wallSMean.toFixed(3)} | ${c.speedup.toFixed(1)} |`,
    );
  }
  return lines;
}

export const timeGridCommand: Command = {
  name: 'time-grid',
  summary: "the Hakoniwa time-sync grid (dmax × assets): violations, std and max of Tc − Ti, wall time; SVG plot",
  usage: USAGE,
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        json: { type: 'boolean', default: false },
        out: { type: 'string' },
        schedule: { type: 'string', default: 'both' },
        speed: { type: 'string', default: '10' },
        'work-us': { type: 'string', default: '50' },
        steps: { type: 'string', default: '1000' },
        samples: { type: 'string', default: '10' },
        'step-ms': { type: 'string', default: '10' },
        'dmax-ms': { type: 'string', default: '10,20,40,80,100' },
        assets: { type: 'string', default: '1,2,4,8,10' },
      },
      strict: true,
      allowPositionals: false,
    });
    const sched = values.schedule;
    if (sched !== 'both' && sched !== 'greedy' && sched !== 'paced') throw new UsageError(`--schedule must be greedy, paced or both, got ${sched}`);
    const cfg: GridConfig = {
      schedules: sched === 'both' ? ['greedy', 'paced'] : [sched],
      speed: num(values.speed, '--speed', 0.01, 1000),
      workUs: num(values['work-us'], '--work-us', 0, 100_000),
      steps: num(values.steps, '--steps', 1, 100_000, true),
      samples: num(values.samples, '--samples', 1, 1000, true),
      stepMs: num(values['step-ms'], '--step-ms', 0.001, 10_000),
      dmaxMs: numberList(values['dmax-ms'], '--dmax-ms', 0.001, 100_000, false),
      assets: numberList(values.assets, '--assets', 1, 64, true),
    };
    const stepUs = Math.round(cfg.stepMs * 1000);
    for (const d of cfg.dmaxMs) if (Math.round(d * 1000) < stepUs) throw new UsageError(`every dmax must be at least the step (${cfg.stepMs} ms), got ${d}`);
    if (cfg.steps * stepUs >= 2 ** 31) throw new UsageError('steps × step must stay below 2^31 µs (35 min)');
    const t0 = performance.now();
    const cells = await runTimeGrid(cfg, (c) => {
      if (!values.json) console.error(`  ${c.schedule} dmax ${c.dmaxMs} ms, ${c.assets} assets: std ${c.skewStdMs.toFixed(2)} ms, ${c.violations} violations, ${c.wallSMean.toFixed(3)} s/run`);
    });
    const totalS = (performance.now() - t0) / 1000;
    if (values.out) writeOutputFile(values.out, gridSvg(cells, cfg));
    const violations = cells.reduce((a, c) => a + c.violations, 0);
    if (values.json) console.log(JSON.stringify({ config: cfg, totalS, violations, cells }));
    else {
      console.log(gridTable(cells).join('\n'));
      console.log(`\n${cells.length} cells, ${violations} violations, ${totalS.toFixed(1)} s${values.out ? `; plot: ${values.out}` : ''}`);
    }
    return violations === 0 ? 0 : 1;
  },
};
