/**
 * What a map's traffic control becomes when a scene runs it, as `vils convert-map` reports it: the junctions by
 * control, the signal groups, the intersection paths that crossed and merged with nothing and joined their
 * siblings' junction (so a signal governs them: a free right turn under its approach's group), and the lines
 * vehicles stop at that no paint marks (a group's, a stop or yield sign's approach). What nobody can see on the
 * map should at least be said once.
 */
import type { LoadedMap } from '../../map/scene-json.js';
import { buildRoadEntities } from '../../map/road-entities.js';
import { LaneNetwork } from '../../traffic/lanes.js';
import { buildTrafficLayout } from './layout.js';

export interface JunctionReport {
  junctions: Record<string, number>;
  signal_groups: number;
  /** intersection paths joined to their siblings' junction: where, which lane, the turn, the group that governs it */
  joined: Array<{ junction: string; lane: string; turn: string; group: string | null }>;
  /** lines vehicles stop at that the map does not paint */
  derived_stop_lines: Array<{ id: string; junction: string; kind: string }>;
  /** records that bound to no junction */
  unbound: { heads: string[]; stop_lines: string[]; signs: string[] };
}

export function junctionReport(map: LoadedMap): JunctionReport {
  const lanes = new LaneNetwork(buildRoadEntities(map.scene.roads, { x: 0, y: 0 }, { gpudriveCaps: false }), map.mapMetadata?.lane_graph);
  const layout = buildTrafficLayout(lanes.lanes, map.trafficControl ?? { signals: [], stop_lines: [], signs: [] }, (id) => lanes.laneById(id));
  const junctions: Record<string, number> = {};
  for (const cj of layout.junctions) junctions[cj.control] = (junctions[cj.control] ?? 0) + 1;
  const joined: JunctionReport['joined'] = [];
  for (const cj of layout.junctions) {
    for (const m of cj.movements) {
      if (!m.joined) continue;
      const g = cj.groupOfMovement[m.index];
      joined.push({ junction: cj.junction.id, lane: lanes.lanes[m.pieces[0].lane].id, turn: m.turn, group: g >= 0 ? layout.groups[g].id : null });
    }
  }
  return {
    junctions, signal_groups: layout.groups.length, joined,
    derived_stop_lines: layout.derivedStopLines.map((l) => ({ id: l.id, junction: l.junction, kind: l.kind })),
    unbound: { heads: [...layout.unbound.heads], stop_lines: [...layout.unbound.stopLines], signs: [...layout.unbound.signs] },
  };
}

/** The report as a few lines for a terminal. */
export function junctionReportLines(r: JunctionReport): string[] {
  const out = [`  junctions: ${Object.entries(r.junctions).map(([k, v]) => `${v} ${k}`).join(', ') || 'none'}; ${r.signal_groups} signal groups`];
  if (r.joined.length) {
    out.push(`    intersection paths that cross nothing, joined to their siblings' junction (${r.joined.length}): ${r.joined.map((j) => `${j.junction} ${j.lane} (${j.turn}${j.group ? `, under ${j.group}` : ''})`).join('; ')}`);
  }
  if (r.derived_stop_lines.length) {
    out.push(`    stop lines the map does not paint, derived where the lanes enter the junction (${r.derived_stop_lines.length}): ${r.derived_stop_lines.map((l) => `${l.id} (${l.kind})`).join(', ')}`);
  }
  const u = r.unbound;
  if (u.heads.length || u.stop_lines.length || u.signs.length) out.push(`    bound to no junction: ${u.heads.length} signal heads, ${u.stop_lines.length} stop lines, ${u.signs.length} signs`);
  return out;
}
