/**
 * Reports say what ran (issue 46 item 4): every override that shaped a run is listed under Parameters (`vils run
 * --set`, a campaign's axes); a campaign's runs are named by their swept values; a criterion with no figure says
 * so in words; rows of a sweep that read the same are said to, with the limit that made them so (the CCRb grid at
 * 12 m: the braking ego at its own full brake); a figure a run cannot compute says why (lap_time after a run too
 * short for a lap, the junction figures of `vils drive --no-rules`).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../src/cli/run.js';
import { driveCommand } from '../../src/cli/drive.js';
import { LocalExecutor, loadCampaign, runCampaign } from '../../src/scenario/index.js';
import { identicalRowNotes, type IdenticalRow } from '../../src/scenario/story/report/identical.js';
import { runName, shortKeys } from '../../src/scenario/batch/run-name.js';
import type { AttemptResult } from '../../src/scenario/story/world.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'vils-reports-'));

async function captured(run: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
  vi.spyOn(console, 'error').mockImplementation((s: string) => void err.push(s));
  try {
    return { code: await run(), out: out.join('\n'), err: err.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('vils run: what shaped the run, and what it could not compute', () => {
  it('--set is listed under Parameters (the report, metrics.json, the terminal); lap_time after a run too short for a lap says why', async () => {
    const out = tmp();
    const r = await captured(() => runCommand.run([join(PROJECT_ROOT, 'configs', 'cases', 'ccrb_6mps2_12m.yaml'), '--set', 'egos.0.autopilot.follow=false', '--out', out]));
    expect(r.code).toBe(1); // no braking: it hits the car ahead
    expect(r.out).toContain('  parameters: egos.0.autopilot.follow = false (--set)');
    expect(r.out).toMatch(/ {2}lap_time {15}– s {2}\(not computed: no lap completed in 3\.1 s: the vehicle drove 43 m and never came back within 8 m of its start, heading as it started, after more than 15 m away; its driving line is \d+ m long\)/);
    const html = readFileSync(join(out, 'attempt.html'), 'utf8');
    const params = html.slice(html.indexOf('<h2>Parameters</h2>'), html.indexOf('<h2>', html.indexOf('<h2>Parameters</h2>') + 5));
    expect(params).toContain('egos.0.autopilot.follow');
    expect(params).toContain('false');
    expect(params).toContain('from --set');
    expect(html).not.toContain('no parameters');
    const metrics = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8')) as { parameters: Record<string, unknown>; not_computed: Record<string, string> };
    expect(metrics.parameters).toEqual({ 'egos.0.autopilot.follow': false });
    expect(metrics.not_computed.lap_time).toMatch(/^no lap completed in 3\.1 s/);
    // a criterion with no figure reads in words on the terminal
    expect(r.out).toMatch(/FAIL {2}no_collision: hit lead at 3\.10 s/);
  }, 60_000);

  it('without --set the report says the case ran as its file says', async () => {
    const out = tmp();
    const r = await captured(() => runCommand.run([join(PROJECT_ROOT, 'configs', 'cases', 'ccrb_6mps2_12m.yaml'), '--out', out, '--quiet']));
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('parameters:');
    expect(r.out).toMatch(/pass {2}no_collision: no contact$/m);
    expect(readFileSync(join(out, 'attempt.html'), 'utf8')).toContain('none: the case ran as its file says (no --set, no campaign axis)');
  }, 60_000);
});

describe('a campaign: runs named by their swept values, rows that read the same said with their cause', () => {
  let ex: LocalExecutor | null = null;
  afterAll(() => ex?.close());

  it('the CCRb grid: named gap and deceleration; the 12 m rows read the same because the ego brakes at its own limit', async () => {
    const campaign = loadCampaign(join(PROJECT_ROOT, 'configs', 'campaigns', 'ccrb_grid.yaml'));
    expect(campaign.jobs.map((j) => j.runId)).toEqual(['0001_gap_m=12_accel_mps2=2', '0002_gap_m=12_accel_mps2=4', '0003_gap_m=12_accel_mps2=6', '0004_gap_m=40_accel_mps2=2', '0005_gap_m=40_accel_mps2=4', '0006_gap_m=40_accel_mps2=6']);
    const out = tmp();
    ex = new LocalExecutor(2);
    const outcome = await runCampaign(campaign, out, ex);
    expect(outcome.failed).toBe(0);
    const twelve = outcome.notes.find((n) => /^Rows 1, 2, 3\b/.test(n));
    expect(twelve, outcome.notes.join('\n')).toBeDefined();
    expect(twelve).toMatch(/read the same whatever [^:]*story\.events\.0\.actions\.0\.speed\.accel_mps2 \(2, 4, 6\)/);
    expect(twelve).toMatch(/sim1 braked at its own limit \(peak_decel 3\.86 m\/s² of its full brake's 4\.17 m\/s², from the vehicle's max_brake_torque\)/);
    const md = readFileSync(join(out, 'cases.md'), 'utf8');
    expect(md).toContain(`**Identical rows:** ${twelve!.replace(/\|/g, '\\|')}`);
    expect(readFileSync(join(out, 'cases.html'), 'utf8')).toContain('<b>Identical rows:</b> Rows 1, 2, 3');
    // no figure for no_collision: the words, not an empty cell
    const summary = readFileSync(join(out, 'summary.csv'), 'utf8').split('\n');
    const header = summary[0].split(',');
    expect(summary[1].split(',')[header.indexOf('no_collision')]).toBe('no contact');
    // each run's report lists the campaign's axes under Parameters
    const html = readFileSync(join(out, 'runs', '0004_gap_m=40_accel_mps2=2.attempt.html'), 'utf8');
    const params = html.slice(html.indexOf('<h2>Parameters</h2>'));
    expect(params).toMatch(/story\.actors\.0\.start\.gap_m<\/td><td class="num">40</);
    expect(params).toMatch(/story\.events\.0\.actions\.0\.speed\.accel_mps2<\/td><td class="num">2</);
    expect(params).toContain('from campaign ccrb_grid');
  }, 120_000);
});

describe('identical rows and run names, pure', () => {
  const result = (decel: number, at: number, stop = 9): AttemptResult => ({
    status: 'passed', reason: 'end condition', ended_by: 'end condition', start_s: 0, end_s: 12,
    events: [{ id: 'brake', started_s: 1, done_s: 3, executions: 1 }],
    criteria: [
      { name: 'no_collision', kind: 'no_collision', verdict: 'pass', value: null, limit: null, unit: '', at_s: null, detail: 'no contact' },
      { name: 'stopped_before', kind: 'stopped_before', verdict: 'pass', value: stop, limit: 0, unit: 'm', at_s: 10, detail: 'sim1 stopped' },
      { name: 'peak_decel', kind: 'peak_decel', verdict: 'pass', value: decel, limit: 10, unit: 'm/s²', at_s: at, detail: 'deceleration' },
    ],
  });
  const limits = [{ ego: 'sim1', full_brake_mps2: 4.17, min_gap_m: 5 }];

  it('a group at the full brake, before the first event, is said so; rows that differ are not grouped', () => {
    const rows: IdenticalRow[] = [2, 4, 6].map((a) => ({ params: { gap: 12, accel: a }, result: result(3.86, 0.5), limits }));
    rows.push({ params: { gap: 40, accel: 2 }, result: result(2.57, 4), limits });
    const notes = identicalRowNotes(rows);
    expect(notes).toEqual(['Rows 1, 2, 3 at gap = 12 read the same whatever accel (2, 4, 6): sim1 braked at its own limit (peak_decel 3.86 m/s² of its full brake\'s 4.17 m/s², from the vehicle\'s max_brake_torque); peak_decel was taken, at 0.50 s, before brake started (1.00 s).']);
  });

  it('a group that no known limit explains says so', () => {
    const rows: IdenticalRow[] = [1, 2].map((a) => ({ params: { accel: a }, result: result(1.2, 4), limits }));
    expect(identicalRowNotes(rows)).toEqual(['Rows 1, 2 read the same whatever accel (1, 2): no limit of the ego explains it: check that the swept keys reach what the criteria measure.']);
    // the same params (repeats of one run) are not a sweep
    expect(identicalRowNotes([{ params: { a: 1 }, result: result(1, 1) }, { params: { a: 1 }, result: result(1, 1) }])).toEqual([]);
  });

  it('run names: the shortest key suffix that tells keys apart, values as given, safe for file names', () => {
    expect(shortKeys(['a.x.v', 'b.x.v', 'c.w'])).toEqual(new Map([['a.x.v', 'a.x.v'], ['b.x.v', 'b.x.v'], ['c.w', 'w']]));
    expect(runName(7, 'iso7401', { 'maneuver.v': 20, 'tire.mu_nominal': 0.123456 })).toBe('0007_v=20_mu_nominal=0.1235');
    expect(runName(8, 'iso7401', {})).toBe('0008_iso7401');
    expect(runName(9, 'x', { 'story.name': 'a b/c' })).toBe('0009_name=a-b-c');
  });
});

describe('vils drive --no-rules: the junction figures are not measured, and it says why', () => {
  it('no "throughput 0 vehicles/h" while traffic flowed: the figures are named as not measured', async () => {
    const r = await captured(() => driveCommand.run(['--npcs', '8', '--seconds', '20', '--no-rules']));
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/throughput \d/);
    expect(r.out).toMatch(/junctions: 1 signal \(rules off\); red-light and stop-sign violations, stands, box blocking and throughput not measured with --no-rules: the junction figures are taken where the traffic rules place each NPC at a junction, and the rules are off/);
    const json = await captured(() => driveCommand.run(['--npcs', '8', '--seconds', '5', '--no-rules', '--json']));
    const res = JSON.parse(json.out) as { not_measured: Record<string, string> };
    expect(res.not_measured.throughput_veh_per_h_per_lane).toMatch(/^not measured with --no-rules/);
    const ruled = await captured(() => driveCommand.run(['--npcs', '8', '--seconds', '5', '--json']));
    expect((JSON.parse(ruled.out) as { not_measured: Record<string, string> }).not_measured).toEqual({});
  }, 120_000);
});
