/**
 * Junctions derived from lane geometry (src/map/junctions.ts) and bound to the map's traffic control
 * (src/scene/junction-kit/layout.ts): crossings, merges, diverges, lanes on another level, approaches, turns, stop lines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRoadEntities } from '../../src/map/road-entities.js';
import { ConflictKind, deriveJunctions, insideConvex, type JunctionLane } from '../../src/map/junctions.js';
import { loadMapFile, parseMapJson, type LoadedMap } from '../../src/map/scene-json.js';
import { buildTrafficLayout } from '../../src/scene/junction-kit/layout.js';
import { LaneNetwork } from '../../src/traffic/lanes.js';
import { crossingMap } from '../helpers/junction-maps.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

function network(map: LoadedMap): LaneNetwork {
  return new LaneNetwork(buildRoadEntities(map.scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), map.mapMetadata?.lane_graph);
}

const straight = (id: string, x0: number, y0: number, x1: number, y1: number, next: number[] = [], extra: Partial<JunctionLane> = {}): JunctionLane => {
  const n = Math.max(1, Math.round(Math.hypot(x1 - x0, y1 - y0) / 2));
  return { id, xs: Array.from({ length: n + 1 }, (_, i) => x0 + ((x1 - x0) * i) / n), ys: Array.from({ length: n + 1 }, (_, i) => y0 + ((y1 - y0) * i) / n), next, ...extra };
};

describe('junctions from lane geometry', () => {
  it('the demo track: one crossing, two approaches of two lanes, each lane crossing the two of the other approach, entries at the painted stop lines', () => {
    const map = loadMapFile(join(PROJECT_ROOT, 'maps', 'demo-track.json'));
    const net = network(map);
    const js = deriveJunctions(net.lanes);
    expect(js).toHaveLength(1);
    const J = js[0];
    expect(Math.hypot(J.x, J.y)).toBeLessThan(1);
    expect(J.movements.map((m) => m.turn)).toEqual(['straight', 'straight', 'straight', 'straight']);
    expect(J.approaches).toHaveLength(2);
    const n = J.movements.length;
    for (let a = 0; a < n; a++) {
      for (let b = 0; b < n; b++) {
        const same = J.movements[a].approach === J.movements[b].approach;
        expect(J.conflicts[a * n + b]).toBe(a === b || same ? ConflictKind.None : ConflictKind.Cross);
        if (!same && a !== b) expect(J.zoneStart[a * n + b]).toBeLessThan(J.zoneEnd[a * n + b]);
      }
    }
    expect(insideConvex(J.polygon, 0, 0)).toBe(true);
    // bound to the map: one signal group per approach, entries moved back to the stop lines 11.5 m from the centre
    const layout = buildTrafficLayout(net.lanes, map.trafficControl, (id) => net.laneById(id));
    const cj = layout.junctions[0];
    expect(cj.control).toBe('signal');
    expect(layout.groups.map((g) => g.id).sort()).toEqual(['J1.A', 'J1.B']);
    expect(layout.unbound).toEqual({ heads: [], stopLines: [], signs: [] });
    for (const m of cj.movements) {
      const along = -(m.entry.x * Math.cos(m.entry.yaw) + m.entry.y * Math.sin(m.entry.yaw));
      expect(along).toBeCloseTo(11.5, 0);
    }
  });

  it('a four-way crossing of two two-way roads: four approaches; crossing directions conflict, opposite ones do not', () => {
    const map = crossingMap();
    const net = network(map);
    const [J, ...rest] = deriveJunctions(net.lanes);
    expect(rest).toHaveLength(0);
    expect(J.approaches).toHaveLength(4);
    const byLane = (id: string) => J.movements.findIndex((m) => net.lanes[m.entry.lane].id === id);
    const n = J.movements.length;
    const k = (a: string, b: string) => J.conflicts[byLane(a) * n + byLane(b)];
    expect(k('EB', 'NB')).toBe(ConflictKind.Cross);
    expect(k('EB', 'SB')).toBe(ConflictKind.Cross);
    expect(k('WB', 'NB')).toBe(ConflictKind.Cross);
    expect(k('EB', 'WB')).toBe(ConflictKind.None);
    expect(k('NB', 'SB')).toBe(ConflictKind.None);
    // entries ENTRY_MARGIN_M before the first conflict: ahead of the crossing lanes' outer edge
    for (const m of J.movements) expect(Math.hypot(m.entry.x, m.entry.y)).toBeGreaterThan(4);
  });

  it('two lanes ending in one point merge; two leaving one point diverge (no junction); a lane on a bridge meets nothing when levels are separate (the flat NPC world does not separate them)', () => {
    const merge = [straight('a', -50, -4, 0, 0, [2]), straight('b', -50, 4, 0, 0, [2]), straight('c', 0, 0, 50, 0)];
    const jm = deriveJunctions(merge);
    expect(jm).toHaveLength(1);
    const n = jm[0].movements.length;
    expect(n).toBe(2);
    expect(jm[0].conflicts[1]).toBe(ConflictKind.Merge);
    const diverge = [straight('in', -50, 0, 0, 0, [1, 2]), straight('l', 0, 0, 50, 4), straight('r', 0, 0, 50, -4)];
    expect(deriveJunctions(diverge)).toHaveLength(0);
    const bridge = [straight('road', -50, 0, 50, 0), straight('over', 0, -50, 0, 50, [], { level: 1 })];
    expect(deriveJunctions(bridge, { separateLevels: true })).toHaveLength(0);
    expect(deriveJunctions(bridge)).toHaveLength(1);
  });

  it('opposite lanes side by side are a two-way road; drawn closer than two cars can pass (a turn over the opposite lane) they meet head on', () => {
    const road = [straight('east', -50, 0, 50, 0), straight('west', 20, 2.2, -20, 2.2)];
    expect(deriveJunctions(road)).toHaveLength(0);
    const overlap = [straight('east', -50, 0, 50, 0), straight('west', 20, 0.3, -20, 0.3)];
    const js = deriveJunctions(overlap);
    expect(js).toHaveLength(1);
    const n = js[0].movements.length;
    expect(n).toBe(2);
    expect(js[0].conflicts[1]).toBe(ConflictKind.Cross);
    expect(js[0].conflicts[n]).toBe(ConflictKind.Cross);
  });

  it('turns: left, right and straight through an intersection of NGII-style intersection lanes, and the turning lanes start where the approach ends', () => {
    // approach from the south ending at (0, -10); intersection lanes to the north, west (left) and east (right);
    // a crossing road west to east
    const lanes: JunctionLane[] = [
      straight('S', 0, -60, 0, -10, [1, 2, 3]),
      straight('S-N', 0, -10, 0, 10, [], { internal: true }),
      { id: 'S-W', xs: [0, 0, -2, -6, -10], ys: [-10, -6, -2, 0, 0], next: [], internal: true },
      { id: 'S-E', xs: [0, 0, 2, 6, 10], ys: [-10, -6, -2, 0, 0], next: [], internal: true },
      straight('W-E', -60, -3, 60, -3),
    ];
    const [J] = deriveJunctions(lanes);
    const turn = (id: string) => J.movements.find((m) => lanes[m.pieces[0].lane].id === id)?.turn;
    expect(turn('S-N')).toBe('straight');
    expect(turn('S-W')).toBe('left');
    expect(turn('S-E')).toBe('right');
    for (const m of J.movements) if (lanes[m.pieces[0].lane].internal) expect(m.entry.s).toBe(0);
  });
});

describe('junction control from the map', () => {
  it('traffic control never reaches what the policy observes: the roads and road entities of a map are the same with and without its records', () => {
    const raw = JSON.parse(readFileSync(join(PROJECT_ROOT, 'maps', 'demo-track.json'), 'utf8')) as Record<string, unknown>;
    expect((raw.traffic_control as { signals: unknown[] }).signals.length).toBeGreaterThan(0);
    const { traffic_control: _, ...bare } = raw;
    const withTc = parseMapJson(raw, 'with'), without = parseMapJson(bare, 'without');
    expect(without.trafficControl.signals).toEqual([]);
    expect(withTc.scene.roads).toEqual(without.scene.roads);
    const entities = (m: LoadedMap) => buildRoadEntities(m.scene.roads, { x: 0, y: 0 }, { gpudriveCaps: true });
    expect(entities(withTc)).toEqual(entities(without));
  });
  it('stop signs on every approach make an all-way stop, on some a two-way stop; yield signs give way; signal heads make groups', () => {
    const ctl = (opts: Parameters<typeof crossingMap>[0]) => {
      const map = crossingMap(opts);
      const net = network(map);
      return buildTrafficLayout(net.lanes, map.trafficControl, (id) => net.laneById(id));
    };
    expect(ctl({}).junctions[0].control).toBe('priority');
    expect(ctl({ signs: { EB: 'stop', WB: 'stop', NB: 'stop', SB: 'stop' } }).junctions[0].control).toBe('all_way_stop');
    const twoWay = ctl({ signs: { NB: 'stop', SB: 'stop' } }).junctions[0];
    expect(twoWay.control).toBe('stop');
    // the stop approaches give way to the through road
    const n = twoWay.movements.length;
    const idx = (dir: string) => twoWay.movements.findIndex((m) => twoWay.approaches[m.approach].sign === (dir === 'minor' ? 'stop' : null));
    expect(twoWay.yields[idx('minor') * n + idx('major')]).toBe(1);
    expect(twoWay.yields[idx('major') * n + idx('minor')]).toBe(0);
    expect(ctl({ signs: { NB: 'yield' } }).junctions[0].control).toBe('yield');
    const sig = ctl({ signals: true });
    expect(sig.junctions[0].control).toBe('signal');
    expect(sig.groups).toHaveLength(4);
  });

  it('the right-hand rule at an uncontrolled crossing of equal roads: a vehicle gives way to one coming from its right', () => {
    const map = crossingMap();
    const net = network(map);
    const cj = buildTrafficLayout(net.lanes, map.trafficControl, (id) => net.laneById(id)).junctions[0];
    const n = cj.movements.length;
    const at = (id: string) => cj.movements.findIndex((m) => net.lanes[m.entry.lane].id === id);
    // northbound: traffic from its right is westbound (coming from the east)
    expect(cj.yields[at('NB') * n + at('WB')]).toBe(1);
    expect(cj.yields[at('WB') * n + at('NB')]).toBe(0);
    expect(cj.yields[at('EB') * n + at('NB')]).toBe(1);
  });
});

describe('intersection paths that cross nothing (issue 41 item 2)', () => {
  // an approach from the west (ap) into two intersection paths: straight on (st, crossing the north-south path ns)
  // and a free right turn (rt) that meets nothing; the south exit (sx) after it
  const lanes = (): JunctionLane[] => [
    straight('ap', -60, -2, -10, -2, [1, 2]),
    straight('st', -10, -2, 10, -2, [], { internal: true }),
    { id: 'rt', xs: [-10, -7, -5, -4, -4], ys: [-2, -2.5, -4, -7, -20], next: [4], internal: true },
    straight('ns', 2, -30, 2, 30, [], { internal: true }),
    straight('sx', -4, -20, -4, -60),
  ];

  it('a free right turn joins the junction its sibling makes, as a movement of the same approach (its first lane whole), flagged joined', () => {
    const ls = lanes();
    const [J, ...rest] = deriveJunctions(ls);
    expect(rest).toHaveLength(0);
    const rt = J.movements.find((m) => ls[m.entry.lane].id === 'rt')!;
    expect(rt).toMatchObject({ joined: true, turn: 'right' });
    expect(rt.pieces[0]).toMatchObject({ s0: 0 });
    const st = J.movements.find((m) => ls[m.entry.lane].id === 'st')!;
    expect(st.joined).toBeUndefined();
    expect(rt.approach).toBe(st.approach);
    // it crosses nothing: no conflict with any movement
    const n = J.movements.length;
    for (let b = 0; b < n; b++) expect(J.conflicts[rt.index * n + b]).toBe(ConflictKind.None);
    // without the rule it would be in no junction: the straight path alone makes it
    const bare = deriveJunctions(ls.map((l) => (l.id === 'rt' ? { ...l, internal: false } : l)));
    expect(bare[0].movements.some((m) => ls[m.entry.lane].id === 'rt')).toBe(false);
  });
});
