/**
 * The people core without a policy (src/scene/people): walking speeds follow the cited distribution, the crosswalk
 * geometry finds where a lane runs through a crosswalk, and the walkers start only when their signal lets them and
 * no vehicle stands on the crosswalk — never on don't-walk or flashing.
 */
import { describe, expect, it } from 'vitest';
import { LaneNetwork } from '../../src/traffic/lanes.js';
import { AgentKind, World } from '../../src/traffic/world.js';
import { GIVE_WAY_BODY_HALF_WIDTH_M } from '../../src/scene/people/tuning.js';
import { CrosswalkGeometry, drawWalkingSpeed, Phase, Walkers, type WalkState } from '../../src/scene/people/index.js';
import { SeededRandom } from '../../src/util/random.js';
import { rightTurnMap } from '../helpers/junction-maps.js';
import { buildRoadEntities } from '../../src/map/road-entities.js';

const CROSSWALK = {
  id: 'CW1', a: { x: -6, y: -16 }, b: { x: 2.5, y: -16 }, length: 8.5, width: 3, lanes: ['SOUTH'],
  polygon: [{ x: -6, y: -17.5 }, { x: 2.5, y: -17.5 }, { x: 2.5, y: -14.5 }, { x: -6, y: -14.5 }],
};

function lanes(): LaneNetwork {
  const map = rightTurnMap();
  return new LaneNetwork(buildRoadEntities(map.scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), map.mapMetadata?.lane_graph);
}

describe('people core', () => {
  it('walking speeds: mean about 1.46 m/s (Knoblauch et al. 1996, one in five 65 or older), within 0.6 … 2.2 m/s', () => {
    const rng = new SeededRandom(3);
    const v = Array.from({ length: 20000 }, () => drawWalkingSpeed(rng)).sort((a, b) => a - b);
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    expect(mean).toBeGreaterThan(1.41);
    expect(mean).toBeLessThan(1.51);
    expect(v[0]).toBeGreaterThanOrEqual(0.6);
    expect(v[v.length - 1]).toBeLessThanOrEqual(2.2);
    // the 15th percentile lies between the two groups' (0.97 and 1.25 m/s)
    expect(v[Math.floor(0.15 * v.length)]).toBeGreaterThan(0.97);
    expect(v[Math.floor(0.15 * v.length)]).toBeLessThan(1.25);
  });

  it('geometry: the SOUTH lane runs through the crosswalk where its centre line (x = −1.75) crosses the axis; a body on it covers that ± its half width', () => {
    const net = lanes();
    const geo = new CrosswalkGeometry([CROSSWALK], net);
    const south = net.laneById('SOUTH');
    const rows = [];
    for (let r = geo.crossFirst[south]; r < geo.crossFirst[south + 1]; r++) rows.push(r);
    expect(rows).toHaveLength(1);
    const r = rows[0];
    expect(geo.crossCw[r]).toBe(0);
    // straight across: the body's axis range is the centre line's crossing ± GIVE_WAY_BODY_HALF_WIDTH_M
    expect(geo.crossULo[r]).toBeCloseTo(4.25 - GIVE_WAY_BODY_HALF_WIDTH_M, 1);
    expect(geo.crossUHi[r]).toBeCloseTo(4.25 + GIVE_WAY_BODY_HALF_WIDTH_M, 1);
    // SOUTH starts at y = −8: the stripes' north edge (y = −14.5) 6.5 m along it, the south edge 9.5 m (the front's
    // distance as the body first touches them, and as it last touches them less the body's length)
    expect(geo.crossSIn[r]).toBeCloseTo(6.5, 0);
    expect(geo.crossSOut[r]).toBeCloseTo(9.5, 0);
    // the lanes that do not reach it have none
    const eb = net.laneById('EB');
    expect(geo.crossFirst[eb + 1] - geo.crossFirst[eb]).toBe(0);
    expect(() => new CrosswalkGeometry([{ ...CROSSWALK, b: CROSSWALK.a }], net)).toThrow(/CW1/);
  });

  it('walkers never start on dont_walk or flashing, do on walk and unsignalised, and not while a vehicle stands on the crosswalk', () => {
    const geo = new CrosswalkGeometry([CROSSWALK], lanes());
    const world = new World(4);
    const starts = (state: WalkState, vehicleOn: boolean) => {
      const w = new Walkers(geo, 8);
      w.target = 8;
      w.reset(1);
      world.count = 0;
      if (vehicleOn) {
        world.count = 1;
        world.present[0] = 1;
        world.kind[0] = AgentKind.Controlled;
        world.x[0] = -1.75; world.y[0] = -16; world.yaw[0] = -Math.PI / 2;
        world.length[0] = 4.5; world.width[0] = 1.9;
      }
      let started = 0, waited = 0;
      const before = new Uint8Array(8);
      for (let k = 0; k < 600; k++) {
        w.step(k * 0.1, 0.1, { walkState: () => state }, world);
        for (let i = 0; i < 8; i++) {
          if (before[i] === Phase.Waiting && w.phase[i] === Phase.Crossing) started++;
          if (w.phase[i] === Phase.Waiting) waited++;
          before[i] = w.phase[i];
        }
      }
      return { started, waited };
    };
    expect(starts('dont_walk', false).started).toBe(0);
    expect(starts('dont_walk', false).waited).toBeGreaterThan(0);
    expect(starts('flashing', false).started).toBe(0);
    expect(starts('walk', false).started).toBeGreaterThan(10);
    expect(starts('none', false).started).toBeGreaterThan(10);
    expect(starts('none', true).started).toBe(0);
  });

  it('nobody waits at a kerb with no spot clear of the lanes (a crosswalk drawn along a lane: its kerb a lies in the traffic)', () => {
    const along = { ...CROSSWALK, id: 'CW-ALONG', a: { x: -1.75, y: -24 }, b: { x: -1.75, y: -32 } };
    const geo = new CrosswalkGeometry([along, CROSSWALK], lanes());
    // kerb a and 6 m back from it are on SOUTH's centre line
    expect(geo.waitA[0]).toBeNaN();
    expect(geo.waitA[1]).toBeGreaterThan(0);
    const w = new Walkers(geo, 8);
    w.target = 8;
    w.reset(2);
    const world = new World(1);
    let waitingAtA = 0, waited = 0;
    for (let k = 0; k < 3000; k++) {
      w.step(k * 0.1, 0.1, { walkState: () => 'dont_walk' }, world);
      for (let i = 0; i < 8; i++) {
        if (w.phase[i] !== Phase.Waiting) continue;
        waited++;
        const kerbA = w.dir[i] > 0;
        if (Number.isNaN(kerbA ? geo.waitA[w.cw[i]] : geo.waitB[w.cw[i]])) waitingAtA++;
        expect(Number.isFinite(w.u[i])).toBe(true);
      }
    }
    expect(waited).toBeGreaterThan(0);
    expect(waitingAtA).toBe(0);
  });

  it('people wait clear of the lanes all across the stripes, not only on the axis (FMTC: one 1.5 m to the side of a clear axis stood 2.5 m from a turn and was struck)', () => {
    const net = lanes();
    // a wide crosswalk across the SOUTH lane (centre line x = −1.75) at 45°, kerb a 3.75 m from it: 0.4 m back the
    // axis is clear (WAIT_CLEAR_M 3.5 m) but its side towards the lane, where people stand too, is 2.9 m from it
    const d = 6 / Math.SQRT2;
    const wide = { ...CROSSWALK, id: 'CW-WIDE', a: { x: -5.5, y: -30 }, b: { x: -5.5 + d, y: -30 - d }, length: 6, width: 4 };
    const geo = new CrosswalkGeometry([wide], net);
    const w = new Walkers(geo, 8);
    w.target = 8;
    w.reset(5);
    const world = new World(1);
    let waited = 0;
    for (let k = 0; k < 2000; k++) {
      w.step(k * 0.1, 0.1, { walkState: () => 'dont_walk' }, world);
      for (let i = 0; i < 8; i++) {
        if (w.phase[i] !== Phase.Waiting) continue;
        waited++;
        const at = net.locate(w.x(i), w.y(i), undefined, 20)!;
        expect(at.offset).toBeGreaterThanOrEqual(3.5 - 1e-6);
      }
    }
    expect(waited).toBeGreaterThan(0);
  });
});
