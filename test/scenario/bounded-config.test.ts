/**
 * Bounded configurations (issue 26): a scenario's duration, a campaign's grid and its Monte-Carlo draws have limits,
 * refused up front with the key and the limit — `duration: 1e15` once ran and grew memory without end, and a
 * 100×100×100 grid sat at 726 MB expanding without starting a run.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCampaign, loadScenario } from '../../src/scenario/index.js';
import { MAX_CAMPAIGN_RUNS } from '../../src/scenario/batch/campaign.js';
import { MAX_DURATION_S } from '../../src/scenario/config.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const dir = mkdtempSync(join(tmpdir(), 'vils-bounded-'));
const SCENARIO = join(PROJECT_ROOT, 'configs', 'scenarios', 'demo_lap.yaml');
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const list = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;

describe('bounded configurations', () => {
  it('a scenario longer than a day of simulated time is refused, in the file and through --set', async () => {
    expect(MAX_DURATION_S).toBe(86_400);
    await expect(loadScenario(SCENARIO, { overrides: { duration: 1e15 } })).rejects.toThrow(/duration.*must be within \[0, 86400\], got 1000000000000000/);
    // the same file with its duration line changed (maps and vehicles by name resolve from the project)
    const text = readFileSync(SCENARIO, 'utf8');
    expect(text).toMatch(/^duration: .*$/m);
    const f = write('long.yaml', text.replace(/^duration: .*$/m, 'duration: 1e15'));
    await expect(loadScenario(f)).rejects.toThrow(/long\.yaml.*duration.*must be within \[0, 86400\], got 1000000000000000/);
    expect((await loadScenario(SCENARIO, { overrides: { duration: 86_400 } })).duration).toBe(86_400);
  });

  it('a grid of 10^6 combinations is refused before it is built, naming the key and the limit; so are draws and runs beyond it', () => {
    const grid = write('grid.yaml', `name: g\nruns:\n  - sweep:\n      base: iso7401\n      grid:\n        maneuver.v: ${list(100)}\n        tire.mu_nominal: ${list(100)}\n        vehicle.mass: ${list(100)}\n`);
    expect(() => loadCampaign(grid)).toThrow(new RegExp(`runs\\[0\\]\\.sweep\\.grid.*the grid has 1000000 combinations; a campaign runs at most ${MAX_CAMPAIGN_RUNS}`));
    const mc = write('mc.yaml', `name: m\nruns:\n  - monte_carlo:\n      base: iso7401\n      n: 20000\n      vary: {tire.mu_nominal: {dist: uniform, lo: 0.4, hi: 1.0}}\n`);
    expect(() => loadCampaign(mc)).toThrow(/runs\[0\]\.monte_carlo\.n.*must be within \[1, 10000\], got 20000/);
    const both = write('both.yaml', `name: b\nruns:\n  - sweep: {base: iso7401, grid: {maneuver.v: ${list(100)}, tire.mu_nominal: ${list(60)}}}\n  - sweep: {base: iso7401, grid: {maneuver.v: ${list(100)}, tire.mu_nominal: ${list(50)}}}\n`);
    expect(() => loadCampaign(both)).toThrow(/runs\[1\]\.sweep\.grid.*the grid has 5000 combinations; a campaign runs at most 10000 \(4000 left after the entries before it\)/);
    const ok = write('ok.yaml', `name: ok\nruns:\n  - sweep: {base: iso7401, grid: {maneuver.v: ${list(100)}, tire.mu_nominal: ${list(100)}}}\n`);
    expect(loadCampaign(ok).jobs).toHaveLength(10_000);
  });
});
