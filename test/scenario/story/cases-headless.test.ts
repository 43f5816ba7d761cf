/**
 * The shipped test cases (configs/cases/*.yaml) run headless through the Simulation API, as `vils run` runs them:
 * with a simulated ego that brakes for what is ahead of it (the autopilot following) each case passes, and with
 * one that does not brake (follow: false) it fails — by collision, distance or TTC: the verdict flips. The same
 * case run twice gives the same actor motion and the same result; a set-up the map cannot hold is refused
 * before the run.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalExecutor, loadCampaign, loadScenario, runCampaign, Simulation, StoryRefused } from '../../../src/scenario/index.js';
import { PROJECT_ROOT } from '../../helpers/shared.js';

const DIR = join(PROJECT_ROOT, 'configs', 'cases');
const CASES = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();

async function attempt(file: string, overrides: Record<string, unknown> = {}) {
  const sim = await Simulation.load(join(DIR, file), { overrides, keepRows: 0 });
  try {
    await sim.run();
    return { result: sim.storyResult()!, trace: sim.world.story!.trace.toJSON(), happenings: [...sim.world.story!.happenings], end: sim.time() };
  } finally {
    await sim.close();
  }
}

describe('shipped test cases, headless', () => {
  it('there are cases: CCRs, CCRm, CCRb (2 and 6 m/s², 12 and 40 m), cut-in, cut-out, a crossing car, a merge', () => {
    expect(CASES).toEqual(expect.arrayContaining(['ccrs.yaml', 'ccrm.yaml', 'ccrb_2mps2_12m.yaml', 'ccrb_2mps2_40m.yaml', 'ccrb_6mps2_12m.yaml', 'ccrb_6mps2_40m.yaml', 'cut_in.yaml', 'cut_out.yaml', 'crossing.yaml', 'merge.yaml']));
  });

  for (const file of CASES) {
    it(`${file}: passes with an ego that brakes, fails with one that does not`, async () => {
      const braking = await attempt(file);
      expect(braking.result.status, JSON.stringify(braking.result.criteria)).toBe('passed');
      // every case has its start line just ahead of where the simulated ego starts: it opens within the first second
      expect(braking.result.start_s).toBeGreaterThan(0);
      expect(braking.result.start_s).toBeLessThan(1);
      expect(braking.result.criteria.every((c) => c.verdict === 'pass')).toBe(true);
      const blind = await attempt(file, { 'egos.0.autopilot.follow': false });
      expect(blind.result.status).toBe('failed');
      const failed = blind.result.criteria.filter((c) => c.verdict === 'fail').map((c) => c.kind);
      expect(failed.some((k) => ['no_collision', 'min_ttc', 'min_distance', 'stopped_before'].includes(k))).toBe(true);
    }, 120_000);
  }

  it('the same case twice: the same actor motion, events and verdict', async () => {
    const a = await attempt('cut_in.yaml');
    const b = await attempt('cut_in.yaml');
    expect(b.result).toEqual(a.result);
    expect(b.trace).toEqual(a.trace);
    expect(a.result.events[0].started_s).not.toBeNull();
  }, 120_000);

  it('refuses a set-up the map cannot hold before the run: a cut-in from a lane that is not there, an unknown actor', async () => {
    const sc = await loadScenario(join(DIR, 'cut_in.yaml'));
    const story = sc.story!;
    // the cutter starts in the lane right of the ego, which has none to its right on the demo track
    const start = story.actors[0].start;
    if (start.kind !== 'relative') throw new Error('cut_in starts relative to the ego');
    const bad = { ...sc, story: { ...story, actors: [{ ...story.actors[0], start: { ...start, lane: 'right' as const } }] } };
    await expect(Simulation.load(bad)).rejects.toThrow(StoryRefused);
    await expect(Simulation.load(bad)).rejects.toThrow(/story\.actors\[0\]\.start/);
    const unknown = { ...sc, story: { ...story, criteria: [{ ...story.criteria[0], ego: 'nobody' } as typeof story.criteria[0]] } };
    await expect(Simulation.load(unknown)).rejects.toThrow(/nobody/);
  }, 60_000);

  it('a campaign sweeps a case (gap, deceleration, a braking or blind ego): one verdict per run in summary.csv and cases.md, an attempt plot per run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vils-cases-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(file, `name: ccrb_flip\nruns:\n  - sweep:\n      base: ${join(DIR, 'ccrb_6mps2_12m.yaml')}\n      grid:\n        story.actors.0.start.gap_m: [12, 40]\n        egos.0.autopilot.follow: [true, false]\nmetrics: [vmax]\n`);
    const out = join(dir, 'out');
    const r = await runCampaign(loadCampaign(file), out, new LocalExecutor(2));
    expect(r).toMatchObject({ total: 4, ran: 4, failed: 0 });
    const rows = readFileSync(join(out, 'summary.csv'), 'utf8').trim().split('\n').map((l) => l.split(','));
    const col = (name: string) => rows[0].indexOf(name);
    expect(rows[0]).toEqual(expect.arrayContaining(['verdict', 'no_collision', 'no_collision_verdict', 'stopped_before_verdict']));
    const verdicts = rows.slice(1).map((row) => `${row[col('story.actors.0.start.gap_m')]} ${row[col('egos.0.autopilot.follow')]} ${row[col('verdict')]}`);
    expect(verdicts).toEqual(['12 true passed', '12 false failed', '40 true passed', '40 false failed']);
    expect(readFileSync(join(out, 'cases.md'), 'utf8')).toMatch(/4 attempts: 2 passed, 2 failed, 0 not started/);
    expect(readdirSync(join(out, 'runs')).filter((f) => f.endsWith('.attempt.svg'))).toHaveLength(4);
    expect(r.casesPath).toBe(join(out, 'cases.html'));
  }, 120_000);

  it('the shipped campaigns load: CCRb over gaps and decelerations, the cut-in over TTCs and speeds, the crossing car over TTCs', () => {
    const jobs = (f: string) => loadCampaign(join(PROJECT_ROOT, 'configs', 'campaigns', f)).jobs.length;
    expect([jobs('ccrb_grid.yaml'), jobs('cut_in_ttc.yaml'), jobs('crossing_ttc.yaml')]).toEqual([6, 6, 3]);
  });

  it('every shipped case is gated by a start line at its speed; an ego crossing it at 30 km/h never starts the attempt: not started, saying why', async () => {
    for (const file of CASES) {
      const sc = await loadScenario(join(DIR, file));
      expect(sc.story!.start, file).toMatchObject({ kind: 'start_line', of: 'sim1', point: { lane: 'R6' }, speed: expect.closeTo(50 / 3.6, 9) });
      expect(sc.story!.startTimeout, file).not.toBeNull();
    }
    const slow = await attempt('ccrs.yaml', { 'egos.0.start.speed': 30 / 3.6, 'egos.0.autopilot.speed': 30 / 3.6 });
    expect(slow.result).toMatchObject({ status: 'not_started', reason: 'start timeout: the start gate did not open within 10 s', end_s: expect.closeTo(10, 9) });
    expect(slow.result.criteria.every((c) => c.verdict === 'pending')).toBe(true);
    expect(slow.happenings.filter((h) => h.kind === 'start_line')).toEqual([{ t: expect.closeTo(0.1, 9), kind: 'start_line', id: 'sim1', detail: 'sim1 crossed the start line at 30.0 km/h, outside 50 ± 5 km/h: the gate stays closed' }]);
  }, 60_000);

  it('a start gate (story.start): the actors are placed only when the car reaches it; a gate never reached is "not started" after start_timeout_s', async () => {
    const gated = await attempt('cut_in.yaml', { 'story.start': { reach: { of: 'sim1', point: { lane: 'R1', s_m: 10 }, radius_m: 3 } } });
    expect(gated.result.status).toBe('passed');
    // the story began at the gate (R6 is 60 m, then the crossing: about 5 s at 50 km/h), not at 0
    expect(gated.result.start_s).toBeGreaterThan(4);
    expect(gated.result.events[0].started_s!).toBeGreaterThan(gated.result.start_s);
    const never = await attempt('cut_in.yaml', { 'story.start': { reach: { of: 'sim1', point: { lane: 'L3', s_m: 10 }, radius_m: 3 } } });
    expect(never.result).toMatchObject({ status: 'not_started', reason: expect.stringMatching(/start gate did not open within 15 s/) });
    expect(never.result.criteria.every((c) => c.verdict === 'pending')).toBe(true);
    await expect(attempt('cut_in.yaml', { 'story.start': { reach: { of: 'nobody', point: { lane: 'R1', s_m: 10 } } } })).rejects.toThrow(/story\.start/);
  }, 60_000);
});
