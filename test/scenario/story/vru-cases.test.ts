/**
 * The Euro NCAP VRU library (configs/cases/vru/*.yaml) run headless through the Simulation API, as `vils run`
 * runs it: with the braking autopilot each case passes, with a car that does not brake (follow: false) it fails
 * by contact with the person — the verdict flips — and that contact is where the protocol puts it: the person's
 * centre at the impact point's share of the car's width when the car's front reaches its path (crossings) or its
 * back (along the lane), measured between policy steps. The people are in the scene's snapshot as what they are
 * (NpcState.kind) at their targets' sizes.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCampaign, loadScenario, Simulation } from '../../../src/scenario/index.js';
import { TARGET_SIZES } from '../../../src/scenario/story/targets.js';
import { PROJECT_ROOT } from '../../helpers/shared.js';

const DIR = join(PROJECT_ROOT, 'configs', 'cases', 'vru');
const CASES = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();
/** how close the blind contact must be to the nominal impact point: 5 % of the car's width (9 cm on 1.8 m) */
const SHARE_TOLERANCE = 0.05;

interface Run {
  status: string;
  reason: string;
  failed: string[];
  /** the person's share of the car's width from its near side where the front reached it (null: never) */
  share: number | null;
  /** the people as the scene's snapshot listed them */
  people: Array<{ actor: string; kind: string; length: number; width: number }>;
}

async function attempt(file: string, follow: boolean, overrides: Record<string, unknown> = {}): Promise<Run> {
  const sim = await Simulation.load(join(DIR, file), { overrides: { 'egos.0.autopilot.follow': follow, ...overrides }, keepRows: 0 });
  let prev: { d: number; lat: number } | null = null;
  let share: number | null = null;
  const people = new Map<string, Run['people'][number]>();
  try {
    while (!sim.done()) {
      await sim.step(0.1);
      const snap = sim.world.scene!.snapshot();
      const e = snap.egos.find((x) => x.egoId === 'sim1')!;
      for (const n of snap.npcs) {
        if (n.kind === undefined) continue;
        people.set(n.actor!, { actor: n.actor!, kind: n.kind, length: n.length, width: n.width });
        const c = Math.cos(e.yaw), s = Math.sin(e.yaw);
        const dx = n.x - e.x, dy = n.y - e.y;
        const lon = dx * c + dy * s, lat = -dx * s + dy * c;
        // crossing: the front to the person's path (its centre); along the lane: the front to its back
        const along = Math.abs(Math.cos(n.yaw - e.yaw)) > 0.7;
        const d = lon - e.length / 2 - (along ? n.length / 2 : 0);
        if (prev && prev.d > 0 && d <= 0 && share === null) {
          const w = prev.d / (prev.d - d);
          share = (prev.lat + (lat - prev.lat) * w + e.width / 2) / e.width;
        }
        prev = { d, lat };
      }
    }
    const r = sim.storyResult()!;
    return { status: r.status, reason: r.reason, failed: r.criteria.filter((c) => c.verdict === 'fail').map((c) => `${c.kind}:${String(c.value)}`), share, people: [...people.values()] };
  } finally {
    await sim.close();
  }
}

describe('the Euro NCAP VRU library, headless', () => {
  it('has CPNA-25, CPNA-75, CPFA-50, CPNC-50, CPLA-25, CBNA-50, CBFA-50, CBLA-50, each at two car speeds', () => {
    const names = [...new Set(CASES.map((f) => f.replace(/_\d+kmh\.yaml$/, '')))];
    expect(names).toEqual(['cbfa50', 'cbla50', 'cbna50', 'cpfa50', 'cpla25', 'cpna25', 'cpna75', 'cpnc50']);
    for (const n of names) expect(CASES.filter((f) => f.startsWith(`${n}_`)), n).toHaveLength(2);
  });

  it('the campaign runs the lot: one run per case', () => {
    const c = loadCampaign(join(PROJECT_ROOT, 'configs', 'campaigns', 'vru.yaml'));
    expect(c.jobs.map((j) => j.scenario.split('/').pop()).sort()).toEqual(CASES);
  });

  it('the impact point measure can fail: a pedestrian starting 0.3 m further out meets the front 17 % of the width short of 25 %', async () => {
    const sc = await loadScenario(join(DIR, 'cpna25_40kmh.yaml'));
    const st = sc.story!.actors[0].start;
    if (st.kind !== 'cross') throw new Error('cpna25 crosses');
    const late = await attempt('cpna25_40kmh.yaml', false, { 'story.actors.0.start.cross.distance_m': st.distance + 0.3 });
    expect(late.status).toBe('failed');
    expect(late.share!).toBeCloseTo(0.25 - 0.3 / 1.8, 1);
    expect(Math.abs(late.share! - 0.25)).toBeGreaterThan(SHARE_TOLERANCE);
  }, 60_000);

  for (const file of CASES) {
    it(`${file}: passes with the braking autopilot; without braking the car hits the person at the impact point`, async () => {
      const sc = await loadScenario(join(DIR, file));
      const person = sc.story!.actors.find((a) => a.kind !== 'vehicle')!;
      const start = person.start;
      const impact = start.kind === 'cross' || start.kind === 'lane' ? start.impact! : null;
      expect(impact, file).not.toBeNull();
      // the nominal impact point as a share of the width from the near side
      const nominal = impact!.side === 'near' ? impact!.share : 1 - impact!.share;

      const braking = await attempt(file, true);
      expect(braking.status, `${braking.reason} ${braking.failed.join(' ')}`).toBe('passed');
      // the person is in the scene as what it is, at its target's size
      const body = TARGET_SIZES[person.target!];
      expect(braking.people).toContainEqual({ actor: person.id, kind: body.kind, length: body.length, width: body.width });

      const blind = await attempt(file, false);
      expect(blind.status).toBe('failed');
      expect(blind.failed).toContain(`no_collision:${person.id}`);
      expect(blind.share, file).not.toBeNull();
      expect(Math.abs(blind.share! - nominal), `${file}: hit at ${blind.share!.toFixed(3)} of the width, nominal ${nominal}`).toBeLessThanOrEqual(SHARE_TOLERANCE);
    }, 120_000);
  }
});
