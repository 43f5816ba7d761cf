/**
 * People at crosswalks in live scenes (src/scene/people), with the S75 policy on simulation time: a person on the
 * crosswalk past a right turn holds the turning NPC before the stripes, which goes once the person has passed;
 * with the give-way rule switched off the same NPC drives onto the occupied crosswalk and strikes the person, and
 * the figures count both (they can fail); ambient people never start on don't-walk, and do when made to ignore
 * their signal (the figure counts it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedMap } from '../../src/map/scene-json.js';
import type { CrosswalkRecord } from '../../src/map/traffic-control.js';
import { PolicySession } from '../../src/policy/session.js';
import { LiveScene } from '../../src/scene/index.js';
import type { WalkState } from '../../src/scene/people/index.js';
import { POLICY_DT } from '../../src/traffic/engine.js';
import { PERSON_ID_BASE } from '../../src/traffic/object-kind.js';
import { rightTurnMap } from '../helpers/junction-maps.js';
import { testModel } from '../helpers/server-fixture.js';
import { have } from '../helpers/prerequisites.js';

let policy: PolicySession;
beforeAll(async () => {
  policy = await PolicySession.load(testModel());
});
afterAll(async () => policy?.release());

/** A crosswalk across the SOUTH lane (x = −1.75) 14 m south of the right turn's exit: walked west → east. */
const CROSS_Y = -16;
function crosswalk(): CrosswalkRecord {
  const a = { x: -6, y: CROSS_Y }, b = { x: 2.5, y: CROSS_Y };
  const w = 3;
  return {
    id: 'CW1', a, b, length: b.x - a.x, width: w, lanes: ['SOUTH'],
    polygon: [{ x: a.x, y: a.y - w / 2 }, { x: b.x, y: b.y - w / 2 }, { x: b.x, y: b.y + w / 2 }, { x: a.x, y: a.y + w / 2 }],
  };
}

function mapWithCrosswalk(): LoadedMap {
  const map = rightTurnMap();
  return { ...map, trafficControl: { ...map.trafficControl, crosswalks: [crosswalk()] } };
}

function sceneOn(map: LoadedMap, config = {}): LiveScene {
  const s = new LiveScene(map, policy.fork(), { npc_target: 0, pedestrians: 0, seed: 1, ...config });
  s.reset();
  return s;
}

/** The right turn's NPC, from 45 m before the turn at 8 m/s, with both approaches green throughout. */
function turningNpc(sc: LiveScene): number {
  const j = sc.control.layout.junctions[0].junction.id;
  const states: Record<string, string> = {};
  for (const g of sc.control.layout.groups) states[g.id] = 'g';
  sc.control.controller.setLive({ junction: j, states: states as never, timeout_s: 600 });
  const lane = sc.lanes.laneById('EB');
  const len = sc.lanes.lanes[lane].length;
  const p = sc.lanes.pose(lane, len - 45);
  return sc.spawnNpc({ x: p.x, y: p.y, yaw: p.yaw, speed: 8, keepDriving: false });
}

interface Run {
  holds: Set<string>;
  /** the NPC's front y when the person had passed its path, its least front distance to the stripes while they had not */
  minGapWhileOccupied: number;
  passedAfterPerson: boolean;
  stoppedBefore: boolean;
  figures: ReturnType<LiveScene['people']['summary']>;
}

/**
 * The NPC turns right towards the crosswalk; when its front is 20 m before the turn (about 35 m along its path
 * from the stripes), a person steps onto them from the west kerb at 0.8 m/s, to cross the NPC's lane.
 */
async function run(giveWay: boolean): Promise<Run> {
  const sc = sceneOn(mapWithCrosswalk());
  sc.people.giveWay.enabled = giveWay;
  const id = turningNpc(sc);
  const near = CROSS_Y + 1.5; // the stripes' north edge
  let placed = -1;
  let personGone = false;
  const out: Run = { holds: new Set(), minGapWhileOccupied: Infinity, passedAfterPerson: false, stoppedBefore: false, figures: sc.people.summary() };
  for (let k = 0; k < 400; k++) {
    await sc.advanceTo(k * POLICY_DT);
    const snap = sc.snapshot();
    const n = snap.npcs.find((v) => v.id === id);
    if (!n) break;
    const front = { x: n.x + 0.5 * n.length * Math.cos(n.yaw), y: n.y + 0.5 * n.length * Math.sin(n.yaw) };
    out.holds.add(n.hold);
    // 20 m before the turn, about 35 m along its path before the stripes: the person steps on
    if (placed < 0 && front.x > -28) placed = sc.people.walkers.place(0, 1, 0, 0.8, sc.time);
    const person = snap.npcs.find((v) => v.id === placed);
    if (placed >= 0 && person) {
      expect(person.kind).toBe('pedestrian');
      expect(person.id).toBeGreaterThanOrEqual(PERSON_ID_BASE);
      // not yet past the NPC's lane (x = −1.75) and its body either side
      if (person.x < -1.75 + 0.5 * n.width + 1.25) {
        out.minGapWhileOccupied = Math.min(out.minGapWhileOccupied, front.y - near);
        if (n.speed < 0.1 && front.y > near) out.stoppedBefore = true;
      }
    }
    if (placed >= 0 && !person) personGone = true;
    if (personGone && front.y < CROSS_Y - 1.5) out.passedAfterPerson = true;
    if (out.passedAfterPerson) break;
  }
  out.figures = sc.people.summary();
  return out;
}

const RUN = have('shared');
describe.skipIf(!RUN)('people at crosswalks (S75 policy)', () => {
  it('a person on the crosswalk holds the turning NPC before the stripes; it goes once they have passed; with the give-way off it drives on and strikes them, and the figures say so', async () => {
    const on = await run(true);
    expect(on.holds.has('crosswalk')).toBe(true);
    expect(on.stoppedBefore).toBe(true);
    expect(on.minGapWhileOccupied).toBeGreaterThan(0);
    expect(on.passedAfterPerson).toBe(true);
    expect(on.figures).toMatchObject({ crosswalks: 1, people_struck: 0, npc_crosswalk_entries_with_person: 0, people_started_on_dont_walk: 0 });

    const off = await run(false);
    expect(off.holds.has('crosswalk')).toBe(false);
    expect(off.minGapWhileOccupied).toBeLessThan(0);
    expect(off.figures.npc_crosswalk_entries_with_person).toBe(1);
    expect(off.figures.people_struck).toBe(1);
    console.log(`give-way on: held ${[...on.holds].join(', ')}, least gap to the stripes while occupied ${on.minGapWhileOccupied.toFixed(1)} m; off: ${JSON.stringify(off.figures)}`);
  }, 120_000);

  it('ambient people never start on don\'t-walk; made to ignore their signal, they do and the figure counts it', async () => {
    // the crosswalk's signal: 30 s walk, 5 s flashing, 25 s don't-walk, from a stub source
    const counts = async (obey: boolean) => {
      const sc = sceneOn(mapWithCrosswalk(), { pedestrians: 10 });
      let t = 0;
      const state = (): WalkState => {
        const p = t % 60;
        return p < 30 ? 'walk' : p < 35 ? 'flashing' : 'dont_walk';
      };
      sc.people.walk = { walkState: state };
      sc.people.walkers.obeySignals = obey;
      let seen = 0;
      let startedWhenNotWalk = 0;
      const phase = new Map<number, number>();
      for (let k = 0; k < 1200; k++) {
        t = k * POLICY_DT;
        await sc.advanceTo(t);
        const w = sc.people.walkers;
        for (let i = 0; i < w.capacity; i++) {
          const before = phase.get(w.id[i]);
          if (before === 1 && w.phase[i] === 2 && state() !== 'walk') startedWhenNotWalk++;
          phase.set(w.id[i], w.phase[i]);
        }
        seen = Math.max(seen, sc.snapshot().npcs.filter((n) => n.kind === 'pedestrian').length);
      }
      return { seen, startedWhenNotWalk, figures: sc.people.summary() };
    };
    const obeying = await counts(true);
    expect(obeying.seen).toBeGreaterThan(3);
    expect(obeying.figures.people_crossings).toBeGreaterThan(10);
    expect(obeying.startedWhenNotWalk).toBe(0);
    expect(obeying.figures.people_started_on_dont_walk).toBe(0);
    const ignoring = await counts(false);
    expect(ignoring.figures.people_started_on_dont_walk).toBeGreaterThan(0);
    expect(ignoring.figures.people_started_on_dont_walk).toBe(ignoring.startedWhenNotWalk);
    console.log(`120 s, 10 people: obeying ${obeying.figures.people_crossings} crossings, 0 on don't-walk; ignoring ${ignoring.figures.people_crossings} crossings, ${ignoring.figures.people_started_on_dont_walk} on don't-walk`);
  }, 120_000);
});
