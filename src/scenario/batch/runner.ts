/**
 * Runs a campaign's jobs on an executor (worker threads here, or a BullMQ queue) and writes its results, in
 * `out/`: `runs/<run id>.csv` (each ego's trace in VDSim's columns; further egos as `<run id>.<ego>.csv`),
 * `resolved/<run id>.yaml` (the scenario as that run resolved it: loadable as it is), `results.jsonl` (one line
 * per finished run, failed ones with their error: a failure is recorded, never fatal), `summary.csv` (run id,
 * status, the swept keys, the metrics) and `plot.svg` (the campaign's `plot:`). Resumable: a second start on the
 * same folder skips the runs `results.jsonl` already holds (and retries the failed ones with `retryFailed`).
 * Everything written is a function of the campaign alone (wall times stay in results.jsonl), so a local run
 * and a queued one write the same files.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderChartDocument, type ChartSeries } from '../../plant/plot/svg-chart.js';
import { renderAttemptSvg } from '../story/report/svg.js';
import { renderAttemptHtml, reportParams } from '../story/report/html.js';
import { campaignTable } from '../story/report/campaign.js';
import { valueText } from '../story/report/format.js';
import type { Campaign, RunJob } from './campaign.js';
import type { RunResult } from './run-job.js';

export interface Executor {
  /** runs at once */
  readonly size: number;
  run(job: RunJob): Promise<RunResult>;
  close(): Promise<void>;
}

export interface Progress {
  done: number;
  total: number;
  failed: number;
  /** runs taken from an earlier, interrupted start */
  resumed: number;
  elapsedS: number;
  runsPerS: number;
  etaS: number;
  last: RunResult | null;
}

export interface CampaignOutcome {
  total: number;
  ran: number;
  resumed: number;
  failed: number;
  wallS: number;
  runsPerS: number;
  summaryPath: string;
  plotPath: string | null;
  /** test cases: the table of their verdicts (cases.html, beside cases.md), null when no run had a story */
  casesPath: string | null;
  /** groups of test-case rows that read the same whatever was swept, each with what made it so */
  notes: string[];
  results: Array<Omit<RunResult, 'csv' | 'resolvedYaml'>>;
}

type Recorded = Omit<RunResult, 'csv' | 'resolvedYaml'>;

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

function cell(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function jobsSignature(c: Campaign): string {
  return JSON.stringify(c.jobs.map((j) => [j.runId, j.scenario, j.overrides, j.metrics]));
}

export function summaryCsv(campaign: Campaign, results: readonly Recorded[]): string {
  const metricNames: string[] = [];
  for (const r of results) for (const k of Object.keys(r.metrics)) if (!metricNames.includes(k)) metricNames.push(k);
  // test cases: the verdict, and each criterion's value and verdict
  const criteria: string[] = [];
  for (const r of results) for (const c of r.attempt?.result.criteria ?? []) if (!criteria.includes(c.name)) criteria.push(c.name);
  const story = results.some((r) => r.attempt) ? ['verdict', ...criteria.flatMap((c) => [c, `${c}_verdict`])] : [];
  const lines = [['run_id', 'status', ...campaign.keys, ...metricNames, ...story, 'error'].join(',')];
  for (const r of [...results].sort((a, b) => a.index - b.index)) {
    const res = r.attempt?.result;
    const storyCells = story.length ? [cell(res?.status ?? ''), ...criteria.flatMap((name) => {
      const c = res?.criteria.find((x) => x.name === name);
      // a criterion with no figure says so in words ('no contact', 'not measured'), never an empty cell
      return [cell(c ? c.value ?? valueText(c) : ''), cell(c?.verdict ?? '')];
    })] : [];
    lines.push([r.runId, r.status, ...campaign.keys.map((k) => cell(r.overrides[k])), ...metricNames.map((m) => cell(r.metrics[m])), ...storyCells, cell(r.error)].join(','));
  }
  return lines.join('\n') + '\n';
}

/** The campaign's figure: its metric against the swept x, one line per value of `series`. */
export function campaignPlot(campaign: Campaign, results: readonly Recorded[]): string | null {
  const p = campaign.plot;
  if (!p) return null;
  const ok = results.filter((r) => r.status === 'ok' && typeof r.overrides[p.x] === 'number' && Number.isFinite(r.metrics[p.metric]));
  const groups = new Map<string, Recorded[]>();
  for (const r of ok) {
    const g = p.series ? `${p.series} = ${String(r.overrides[p.series])}` : p.metric;
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(r);
  }
  const series: ChartSeries[] = [...groups.entries()].map(([label, rs], i) => {
    const sorted = [...rs].sort((a, b) => (a.overrides[p.x] as number) - (b.overrides[p.x] as number));
    return { label, color: COLORS[i % COLORS.length], x: sorted.map((r) => r.overrides[p.x] as number), y: sorted.map((r) => r.metrics[p.metric]) };
  });
  return renderChartDocument({
    title: `${campaign.name}: ${p.metric} against ${p.x}`,
    subtitle: `${ok.length} of ${results.length} runs`,
    panels: [{ title: p.metric, xLabel: p.x, yLabel: p.metric, series }],
  });
}

export async function runCampaign(campaign: Campaign, out: string, executor: Executor, opts: { retryFailed?: boolean; onProgress?: (p: Progress) => void } = {}): Promise<CampaignOutcome> {
  mkdirSync(join(out, 'runs'), { recursive: true });
  mkdirSync(join(out, 'resolved'), { recursive: true });
  const sigPath = join(out, 'campaign.json');
  const resultsPath = join(out, 'results.jsonl');
  const sig = jobsSignature(campaign);
  if (existsSync(sigPath)) {
    const prior = JSON.parse(readFileSync(sigPath, 'utf8')) as { signature: string; name: string };
    if (prior.signature !== sig) throw new Error(`${out} holds the results of another campaign (${prior.name}, or this one changed): use another --out folder`);
  } else writeFileSync(sigPath, JSON.stringify({ name: campaign.name, file: campaign.file, runs: campaign.jobs.length, signature: sig }, null, 1) + '\n');

  const recorded = new Map<string, Recorded>();
  if (existsSync(resultsPath)) {
    for (const line of readFileSync(resultsPath, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const r = JSON.parse(line) as Recorded;
        recorded.set(r.runId, r);
      } catch {
        // a line cut by a kill: that run runs again
      }
    }
  }
  const keep = (r: Recorded | undefined) => r !== undefined && (r.status === 'ok' || !opts.retryFailed);
  const todo = campaign.jobs.filter((j) => !keep(recorded.get(j.runId)));
  const resumed = campaign.jobs.length - todo.length;
  const t0 = performance.now();
  let done = 0;
  let failed = [...recorded.values()].filter((r) => r.status === 'failed' && keep(r)).length;
  const report = (last: RunResult | null) => {
    const elapsedS = (performance.now() - t0) / 1000;
    const rate = done > 0 ? done / elapsedS : 0;
    opts.onProgress?.({ done: resumed + done, total: campaign.jobs.length, failed, resumed, elapsedS, runsPerS: rate, etaS: rate > 0 ? (todo.length - done) / rate : NaN, last });
  };
  report(null);
  await Promise.all(todo.map(async (job) => {
    const r = await executor.run(job);
    for (const [ego, text] of Object.entries(r.csv)) {
      const first = Object.keys(r.csv)[0] === ego;
      writeFileSync(join(out, 'runs', first ? `${r.runId}.csv` : `${r.runId}.${ego}.csv`), text);
    }
    if (r.resolvedYaml) writeFileSync(join(out, 'resolved', `${r.runId}.yaml`), r.resolvedYaml);
    if (r.attempt) {
      writeFileSync(join(out, 'runs', `${r.runId}.attempt.svg`), renderAttemptSvg(r.attempt.result, r.attempt.trace, { title: `${campaign.name} ${r.runId}` }));
      // its report, the run's overrides under Parameters: the campaign's axes (and its common duration and seed)
      writeFileSync(join(out, 'runs', `${r.runId}.attempt.html`), renderAttemptHtml(r.attempt.result, r.attempt.trace, {
        caseName: `${campaign.name} ${r.runId}`, params: reportParams(r.overrides), paramsSource: `campaign ${campaign.name}`,
        notes: [`scenario ${job.scenario}`],
      }));
    }
    const { csv: _c, resolvedYaml: _y, ...rec } = r;
    recorded.set(r.runId, rec);
    appendFileSync(resultsPath, JSON.stringify(rec, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v)) + '\n');
    done++;
    if (r.status === 'failed') failed++;
    report(r);
  }));
  const wallS = (performance.now() - t0) / 1000;
  const results = campaign.jobs.map((j) => recorded.get(j.runId)).filter((r): r is Recorded => r !== undefined);
  for (const r of results) for (const [k, v] of Object.entries(r.metrics)) if (v === null) r.metrics[k] = NaN;
  const summaryPath = join(out, 'summary.csv');
  writeFileSync(summaryPath, summaryCsv(campaign, results));
  const cases = results.filter((r) => r.attempt);
  let casesPath: string | null = null;
  let notes: string[] = [];
  if (cases.length) {
    const table = campaignTable(cases.map((r) => ({ case: r.runId, params: Object.fromEntries(campaign.keys.map((k) => [k, r.overrides[k] as number | string])), result: r.attempt!.result, limits: r.limits })));
    notes = table.notes;
    casesPath = join(out, 'cases.html');
    writeFileSync(casesPath, table.html);
    writeFileSync(join(out, 'cases.md'), table.markdown);
  }
  const svg = campaignPlot(campaign, results);
  const plotPath = svg ? join(out, 'plot.svg') : null;
  if (svg && plotPath) writeFileSync(plotPath, svg);
  return { total: campaign.jobs.length, ran: done, resumed, failed, wallS, runsPerS: done / Math.max(wallS, 1e-9), summaryPath, plotPath, casesPath, notes, results };
}

/** A progress line: bar, counts, rate and ETA. */
export function progressLine(p: Progress, width = 30): string {
  const frac = p.total ? p.done / p.total : 1;
  const fill = Math.round(frac * width);
  const eta = Number.isFinite(p.etaS) ? `ETA ${p.etaS < 60 ? `${p.etaS.toFixed(0)} s` : `${(p.etaS / 60).toFixed(1)} min`}` : 'ETA –';
  return `[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${p.done}/${p.total} runs${p.failed ? `, ${p.failed} failed` : ''}${p.resumed ? ` (${p.resumed} from before)` : ''}, ${p.runsPerS.toFixed(2)} runs/s, ${eta}`;
}
