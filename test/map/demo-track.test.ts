import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDemoTrack } from '../../src/map/demo-track.js';
import { renderMapSvg } from '../../src/map/render-svg.js';
import { loadMapFile } from '../../src/map/scene-json.js';
import { buildRoadEntities } from '../../src/map/road-entities.js';
import { LaneNetwork } from '../../src/traffic/lanes.js';
import { driveMap } from '../../src/cli/drive.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { testModel } from '../helpers/server-fixture.js';
import { have } from '../helpers/prerequisites.js';

const TRACK = join(PROJECT_ROOT, 'maps', 'demo-track.json');

describe('demo track', () => {
  it('is what converters/demo-track.ts generates (run npm run build:demo-track after changing it)', () => {
    expect(JSON.parse(readFileSync(TRACK, 'utf8'))).toEqual(JSON.parse(JSON.stringify(buildDemoTrack())));
  });

  it('is a closed two-lane circuit near the FMTC origin with a four-way intersection', () => {
    const { scene, mapMetadata } = loadMapFile(TRACK);
    expect(mapMetadata?.origin).toMatchObject({ lat: 37.3645, lon: 126.7239 });
    const lanes = mapMetadata!.lane_graph!.lanes;
    expect(lanes).toHaveLength(12);
    // following `next` from any lane comes back to it after 6 lanes
    const byId = new Map(lanes.map((l) => [String(l.id), l]));
    for (const start of lanes) {
      let id = String(start.id);
      for (let k = 0; k < 6; k++) id = String(byId.get(id)!.next![0]);
      expect(id).toBe(String(start.id));
    }
    expect(lanes.filter((l) => l.left || l.right)).toHaveLength(12); // every lane has its neighbour
    // two lane centre lines cross at right angles at the origin
    const net = new LaneNetwork(buildRoadEntities(scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), mapMetadata!.lane_graph);
    const a = net.locate(0, 0, Math.PI / 4, 3)!;
    const b = net.locate(0, 0, -Math.PI / 4, 3)!;
    expect(a.lane).not.toBe(b.lane);
    expect(Math.abs(Math.cos(net.pose(a.lane, a.s).yaw - net.pose(b.lane, b.s).yaw))).toBeLessThan(0.05);
    const types = new Set(scene.roads.map((r) => r.type));
    for (const t of ['lane', 'road_line', 'road_edge', 'crosswalk', 'speed_bump']) expect(types.has(t)).toBe(true);
    // the crossing is signalised: two heads and two painted stop lines, on the lanes of each approach, no stop signs
    expect(types.has('stop_sign')).toBe(false);
    const tc = loadMapFile(TRACK).trafficControl;
    expect(tc.signals.map((h) => h.lanes.length)).toEqual([2, 2]);
    expect(tc.stop_lines.map((l) => l.lanes.length)).toEqual([2, 2]);
    expect(tc.signs).toEqual([]);
  });

  it('renders to SVG with lanes, coloured lines, edges, bumps and the origin', () => {
    const loaded = loadMapFile(TRACK);
    const svg = renderMapSvg(loaded.scene, { title: 'demo' });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('stroke="#ffffff"'); // white lines
    expect(svg).toContain('stroke-dasharray'); // the broken lane line
    expect(svg).toContain('fill="#e67e22"'); // speed bump
    expect((svg.match(/<circle /g) ?? []).length).toBe(0); // no stop signs: the crossing has signals
    expect(svg).toContain('stroke="#00f"'); // origin cross
  });
});

describe.skipIf(!have('shared'))('NPCs on the demo track (S75)', () => {
  it('drive their routes, keep to their lanes and the road: 10 NPCs for 60 s', async () => {
    const r = await driveMap({ mapPath: TRACK, npcs: 10, seconds: 60, seed: 2, modelPath: testModel() });
    expect(r.npc_steps).toBe(6000);
    // the throughput report: stepping time apart from loading, and the real-time factor it gives
    expect(r.setup_seconds).toBeGreaterThan(0);
    expect(r.real_time_factor).toBeCloseTo(60 / r.wall_seconds, 9);
    expect(r.agent_steps_per_s).toBeCloseTo(6000 / r.wall_seconds, 6);
    expect(r.mean_speed_mps).toBeGreaterThan(6);
    expect(r.goal_rate).toBe(1);
    expect(r.stuck_npcs).toBe(0);
    expect(r.road_edge_step_share).toBeLessThan(0.005);
    expect(r.vehicle_contact_step_share).toBeLessThan(0.005);
    expect(r.wrong_way_steps).toBe(0);
    expect(r.heading_jitter_step_share).toBeLessThan(0.02);
  }, 60000);
});
