/**
 * A scenario's `signals:` section (src/scenario/signals.ts): its shape checked with errors that name the key, and the
 * plans it gives a live scene (offsets for a green wave, green times, whole programs; refused with the reason).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMapFile } from '../../src/map/scene-json.js';
import { ConfigError } from '../../src/plant/config/errors.js';
import { PolicySession } from '../../src/policy/session.js';
import { LiveScene } from '../../src/scene/index.js';
import { parseSignals } from '../../src/scenario/signals.js';
import { testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const TRACK = loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json'));
let policy: PolicySession;
beforeAll(async () => {
  policy = await PolicySession.load(testModel());
});
afterAll(async () => policy?.release());

describe('scenario signals', () => {
  it('reads offsets, green times and whole programs; errors name the key', () => {
    const s = parseSignals({ all: true, junctions: { J1: { offset_s: 12, green_s: [30, 20] }, J2: { phases: [{ duration_s: 20, states: { 'J2.A': 'G' } }] } } }, 'x.yaml');
    expect(s.all).toBe(true);
    expect(s.plans).toEqual([{ junction: 'J1', offset_s: 12, green_s: [30, 20] }, { junction: 'J2', phases: [{ duration_s: 20, states: { 'J2.A': 'G' } }] }]);
    const err = (v: unknown) => {
      try {
        parseSignals(v, 'x.yaml');
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err({ junction: {} })).toMatch(/signals\.junction.*unknown key/);
    expect(err({ junctions: { J1: { green_s: [30, -1] } } })).toMatch(/signals\.junctions\.J1\.green_s\[1\]/);
    expect(err({ junctions: { J1: { phases: [{ duration_s: 10, states: { 'J1.A': 'blue' } }] } } })).toMatch(/signals\.junctions\.J1\.phases\[0\]\.states\.J1\.A.*G, g, y, r or o/);
    expect(err({ junctions: { J1: { phases: [], green_s: [1] } } })).toMatch(/phases or green_s, not both/);
    expect(err({ junctions: { J1: { offset_s: 'soon' } } })).toMatch(/signals\.junctions\.J1\.offset_s/);
    expect(err({ all: 'yes' })).toMatch(/signals\.all/);
    expect(err({ junctions: { J1: { actuated: 'yes' } } })).toMatch(/signals\.junctions\.J1\.actuated'?: expected true .* or false/);
    expect(parseSignals({ junctions: { J1: { actuated: false } } }, 'x.yaml').plans).toEqual([{ junction: 'J1', actuated: false }]);
    expect(parseSignals({ actuated: true }, 'x.yaml').actuated).toBe(true);
    expect(err({ actuated: 1 })).toMatch(/signals\.actuated/);
  });

  it('fixed time by default; a scenario makes the lone junctions vehicle-actuated (signals.actuated), one of them (actuated: true, its own greens the longest), or one back to fixed time', () => {
    const fixedDefault = new LiveScene(TRACK, policy.fork(), { npc_target: 0 }).control.controller.plan('J1')!;
    expect(fixedDefault.actuated).toBeUndefined();
    const def = new LiveScene(TRACK, policy.fork(), { npc_target: 0 }, { signalsActuated: true }).control.controller.plan('J1')!;
    expect(def.actuated?.phases.filter((a) => a !== null).map((a) => a!.min_s)).toEqual([5, 5]);
    expect(def.phases).toEqual(fixedDefault.phases);
    const fixed = new LiveScene(TRACK, policy.fork(), { npc_target: 0 }, { signalsActuated: true, signalPlans: [{ junction: 'J1', actuated: false }] }).control.controller.plan('J1')!;
    expect(fixed.actuated).toBeUndefined();
    expect(fixed.phases).toEqual(def.phases);
    expect(new LiveScene(TRACK, policy.fork(), { npc_target: 0 }, { signalPlans: [{ junction: 'J1', actuated: true }] }).control.controller.plan('J1')!.actuated).toEqual(def.actuated);
    const own = new LiveScene(TRACK, policy.fork(), { npc_target: 0 }, { signalPlans: [{ junction: 'J1', green_s: [40, 15], actuated: true }] }).control.controller.plan('J1')!;
    expect(own.actuated?.phases.filter((a) => a !== null)).toEqual([{ min_s: 5, max_s: 40 }, { min_s: 5, max_s: 15 }]);
    expect(new LiveScene(TRACK, policy.fork(), { npc_target: 0 }, { signalPlans: [{ junction: 'J1', green_s: [40, 15] }] }).control.controller.plan('J1')!.actuated).toBeUndefined();
  });

  it('a live scene runs a scenario\'s plan (green times and an offset); a plan that would show conflicting greens is refused naming them', () => {
    const sc = new LiveScene(TRACK, policy.fork(), { npc_target: 0 }, { signalPlans: [{ junction: 'J1', offset_s: 7, green_s: [40, 15] }] });
    const p = sc.control.controller.plan('J1')!;
    expect(p.offset_s).toBe(7);
    expect(p.phases.filter((ph) => /G/.test(ph.states)).map((ph) => ph.duration_s)).toEqual([40, 15]);
    expect(p.source).toBe('scenario');
    expect(() => new LiveScene(TRACK, policy.fork(), { npc_target: 0 }, { signalPlans: [{ junction: 'J1', phases: [{ duration_s: 30, states: { 'J1.A': 'G', 'J1.B': 'G' } }] }] }))
      .toThrow(/J1\.[AB] \(green\) and J1\.[AB] \(green\) conflict/);
    expect(() => new LiveScene(TRACK, policy.fork(), { npc_target: 0 }, { signalPlans: [{ junction: 'J7', offset_s: 1 }] })).toThrow(/J7: no signalised junction of that id \(signalised: J1\)/);
    expect(() => new LiveScene(TRACK, policy.fork(), { npc_target: 0 }, { signalPlans: [{ junction: 'J1', phases: [{ duration_s: 30, states: { 'J1.C': 'G' } }] }] })).toThrow(/unknown signal group "J1.C"/);
  });
});
