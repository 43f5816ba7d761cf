/**
 * Batch sweeps: local worker threads (progress, failures recorded, resume, outputs) and BullMQ on a real
 * redis-server (Debian's package; `.ci/run` installs it): a 20-run campaign run locally and through two
 * `vils worker` processes writes the same files. The threads and workers run the compiled code (npm run build).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalExecutor, QueueExecutor, loadCampaign, loadScenario, runCampaign, type Progress } from '../../src/scenario/index.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';
import { findRedis } from '../support/prerequisites.mjs';

const tmp = () => mkdtempSync(join(tmpdir(), 'vils-batch-'));
const iso = join(PROJECT_ROOT, 'configs', 'experiments', 'iso7401.yaml');

function campaignFile(dir: string, text: string): string {
  const p = join(dir, 'campaign.yaml');
  writeFileSync(p, text);
  return p;
}

describe('batch in worker threads', () => {
  it('runs a grid and a failing run: summary.csv, per-run CSV and resolved YAML, plot.svg, progress; resumes where it stopped', async () => {
    const dir = tmp();
    const file = campaignFile(dir, `name: small\nduration: 1.0\nruns:\n  - sweep: { base: ${iso}, grid: { maneuver.v: [15, 20], tire.mu_nominal: [0.5, 1.0] } }\n  - scenario: ${iso}\n    overrides: { vehicle.mass: -5 }\nmetrics: [yaw_rate_ss, ay_ss, peak_ay]\nplot: { metric: peak_ay, x: maneuver.v, series: tire.mu_nominal }\n`);
    const campaign = loadCampaign(file);
    expect(campaign.jobs).toHaveLength(5);
    const out = join(dir, 'out');
    const progress: Progress[] = [];
    const ex = new LocalExecutor(2);
    const first = await runCampaign(campaign, out, ex, { onProgress: (p) => progress.push(p) });
    expect(first).toMatchObject({ total: 5, ran: 5, failed: 1, resumed: 0 });
    expect(progress.at(-1)).toMatchObject({ done: 5, total: 5, failed: 1 });
    expect(progress.every((p) => p.done <= p.total)).toBe(true);
    const summary = readFileSync(join(out, 'summary.csv'), 'utf8').trim().split('\n');
    expect(summary[0]).toBe('run_id,status,maneuver.v,tire.mu_nominal,vehicle.mass,yaw_rate_ss,ay_ss,peak_ay,error');
    expect(summary).toHaveLength(6);
    expect(summary[5]).toMatch(/^0005_mass=-5,failed,,,-5,,,,.*key 'mass': must be > 0/);
    // a friction-limited car: more grip, more lateral acceleration
    const peak = (row: string) => Number(row.split(',')[7]);
    expect(peak(summary[2])).toBeGreaterThan(peak(summary[1]));
    // each run named by what it sweeps (issue 46), not by the base file
    expect(readdirSync(join(out, 'runs')).sort()).toEqual(['0001_v=15_mu_nominal=0.5.csv', '0002_v=15_mu_nominal=1.csv', '0003_v=20_mu_nominal=0.5.csv', '0004_v=20_mu_nominal=1.csv']);
    const resolved = await loadScenario(join(out, 'resolved', '0002_v=15_mu_nominal=1.yaml'));
    expect(resolved.egos[0].tires[0].muNominal).toBe(1.0);
    expect(resolved.egos[0].start.speed).toBe(15);
    expect(readFileSync(join(out, 'plot.svg'), 'utf8')).toMatch(/^<svg[^>]*>[\s\S]*tire\.mu_nominal = 0\.5[\s\S]*<\/svg>\s*$/);
    // an interrupted campaign: drop the last two results, start again — only those run
    const lines = readFileSync(join(out, 'results.jsonl'), 'utf8').trim().split('\n');
    writeFileSync(join(out, 'results.jsonl'), lines.slice(0, 3).join('\n') + '\n');
    const second = await runCampaign(campaign, out, ex);
    expect(second).toMatchObject({ ran: 2, resumed: 3, failed: 1 });
    expect(readFileSync(join(out, 'summary.csv'), 'utf8').trim().split('\n')).toEqual(summary);
    // a different campaign in the same folder is refused
    await expect(runCampaign({ ...campaign, jobs: campaign.jobs.slice(0, 2) }, out, ex)).rejects.toThrow(/holds the results of another campaign/);
    await ex.close();
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

const REDIS = have('redis') ? findRedis() : null;

describe.skipIf(!REDIS)('batch beyond one machine: BullMQ on a real redis-server', () => {
  let redis: ChildProcess | null = null;
  let url = '';
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    if (!REDIS) throw new Error('redis-server is not installed (apt-get install redis-server)');
    const port = await freePort();
    redis = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('redis-server did not start')), 10_000);
      redis!.stdout!.on('data', (d: Buffer) => {
        if (/Ready to accept connections/.test(d.toString())) {
          clearTimeout(t);
          resolve();
        }
      });
    });
    url = `redis://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : w.once('exit', r)))));
    redis?.kill('SIGTERM');
  });

  it('a 20-run campaign through two `vils worker` processes writes the same files as a local run', async () => {
    const dir = tmp();
    const file = campaignFile(dir, readFileSync(join(PROJECT_ROOT, 'configs', 'campaigns', 'iso7401_grid.yaml'), 'utf8').replace('name: iso7401_grid', 'name: iso7401_grid\nduration: 1.5'));
    const campaign = loadCampaign(file);
    expect(campaign.jobs).toHaveLength(20);
    const local = new LocalExecutor(2);
    await runCampaign(campaign, join(dir, 'local'), local);
    await local.close();

    const cli = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'vils.js');
    for (let i = 0; i < 2; i++) {
      const w = spawn(process.execPath, [cli, 'worker', '--queue', url, '--concurrency', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      w.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      workers.push(w);
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`vils worker did not start: ${err}`)), 20_000);
        const check = () => {
          if (/thread\(s\) on redis:/.test(err)) {
            clearTimeout(t);
            resolve();
          }
        };
        w.stderr!.on('data', check);
      });
    }
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const queue = await QueueExecutor.connect(url, campaign);
    const outcome = await runCampaign(campaign, join(dir, 'queue'), queue);
    await queue.close();
    process.off('warning', onWarning);
    expect(outcome).toMatchObject({ total: 20, ran: 20, failed: 0 });
    expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]); // 20 runs awaited at once: no listener-leak warning
    const files = (sub: string) => readdirSync(join(dir, 'local', sub)).sort();
    expect(readFileSync(join(dir, 'queue', 'summary.csv'), 'utf8')).toBe(readFileSync(join(dir, 'local', 'summary.csv'), 'utf8'));
    for (const sub of ['runs', 'resolved']) {
      expect(readdirSync(join(dir, 'queue', sub)).sort()).toEqual(files(sub));
      for (const f of files(sub)) expect(readFileSync(join(dir, 'queue', sub, f), 'utf8')).toBe(readFileSync(join(dir, 'local', sub, f), 'utf8'));
    }
  });

  it('test cases through the queue: the same verdicts, summary.csv and cases table as a local run', async () => {
    expect(workers.length).toBe(2);
    const dir = tmp();
    const campaign = loadCampaign(join(PROJECT_ROOT, 'configs', 'campaigns', 'cut_in_ttc.yaml'));
    const local = new LocalExecutor(2);
    await runCampaign(campaign, join(dir, 'local'), local);
    await local.close();
    const queue = await QueueExecutor.connect(url, campaign);
    const outcome = await runCampaign(campaign, join(dir, 'queue'), queue);
    await queue.close();
    expect(outcome).toMatchObject({ total: 6, ran: 6, failed: 0 });
    for (const f of ['summary.csv', 'cases.md']) expect(readFileSync(join(dir, 'queue', f), 'utf8')).toBe(readFileSync(join(dir, 'local', f), 'utf8'));
    expect(readFileSync(join(dir, 'queue', 'cases.md'), 'utf8')).toMatch(/6 attempts: 6 passed/);
  }, 120_000);
});
