/**
 * What a map's traffic control becomes when a scene runs it, as `vils convert-map` reports it: the junctions by
 * control, the signal groups, the intersection paths that crossed and merged with nothing and joined their
 * siblings' junction (so a signal governs them: a free right turn under its approach's group), the lines
 * vehicles stop at that no paint marks (a group's, a stop or yield sign's approach), and the crosswalks' walk
 * groups. What nobody can see on the map should at least be said once.
 */
import type { LoadedMap } from '../../map/scene-json.js';
import { buildRoadEntities } from '../../map/road-entities.js';
import { LaneNetwork } from '../../traffic/lanes.js';
import { buildTrafficLayout } from '../junction-kit/layout.js';
import { crosswalksOf } from '../../map/traffic-control.js';
import { derivePlans } from './derived-plans.js';
import { walksNeverWalking } from './walk-plan.js';
import { buildWalkLayout } from './walk-layout.js';

export interface JunctionReport {
  junctions: Record<string, number>;
  signal_groups: number;
  /** intersection paths joined to their siblings' junction: where, which lane, the turn, the group that governs it */
  joined: Array<{ junction: string; lane: string; turn: string; group: string | null }>;
  /** lines vehicles stop at that the map does not paint */
  derived_stop_lines: Array<{ id: string; junction: string; kind: string }>;
  /** records that bound to no junction */
  unbound: { heads: string[]; stop_lines: string[]; signs: string[] };
  /** crosswalks and their walk groups (walk-layout.ts) */
  walks: WalkReport;
}

export interface WalkReport {
  crosswalks: number;
  /** crosswalks at signalised junctions: one walk group each */
  signalised: number;
  /** lanes crossed, summed over the signalised crosswalks */
  lanes_crossed: number;
  /** walk groups shown by mapped pedestrian heads (the others are derived alone) */
  with_heads: number;
  /** walk groups with their crosswalk and the vehicle groups whose protected green crosses it */
  groups: Array<{ id: string; crosswalk: string; conflicts: string[]; heads: string[] }>;
  /** walk groups the junction's derived plan never lets walk (walk-plan.ts walksNeverWalking): none, as derived */
  never_free: string[];
  /** walk groups no phase of the default vehicle plan left free: the derived plan gives them a pedestrian interval (walk-plan.ts) */
  pedestrian_intervals: string[];
  /** walk groups whose free phase was too short for their pedestrian green: that phase's green lengthened by */
  lengthened: string[];
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
  const crosswalks = crosswalksOf(map.trafficControl ?? { signals: [], stop_lines: [], signs: [] });
  const wl = buildWalkLayout(layout, lanes.lanes, crosswalks, map.trafficControl?.signals ?? []);
  const neverFree: string[] = [];
  // the plans a scene derives (default greens, not coordinated): every walk group's pedestrian green is in them
  const derived = derivePlans(layout, lanes.lanes, wl, { coordinate: false });
  const intervals: string[] = [], lengthened: string[] = [];
  for (const [, t] of derived.walkTime) {
    intervals.push(...t.interval);
    lengthened.push(...t.lengthened.map((l) => `${l.walk} +${l.byS} s`));
  }
  layout.junctions.forEach((cj, j) => {
    if (!wl.byJunction[j].length) return;
    const plan = derived.plans.get(cj.junction.id)!;
    neverFree.push(...walksNeverWalking(plan, cj, wl.byJunction[j].map((w) => wl.groups[w])));
  });
  const walks: WalkReport = {
    crosswalks: crosswalks.length, signalised: wl.groups.length,
    lanes_crossed: wl.groups.reduce((a, g) => a + crosswalks[g.crosswalk].lanes.length, 0),
    with_heads: wl.groups.filter((g) => g.heads.length > 0).length,
    groups: wl.groups.map((g) => ({ id: g.id, crosswalk: g.crosswalkId, conflicts: g.conflicts.map((c) => layout.groups[c.group].id), heads: [...g.heads] })),
    never_free: neverFree, pedestrian_intervals: intervals, lengthened,
  };
  return {
    walks,
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
  const w = r.walks;
  if (w.crosswalks) {
    out.push(`    crosswalks: ${w.crosswalks}, ${w.signalised} at signalised junctions (one walk group each, crossing ${w.lanes_crossed} lanes; ${w.with_heads} shown by mapped pedestrian heads), ${w.crosswalks - w.signalised} unsignalised`);
    if (w.pedestrian_intervals.length) out.push(`    walk groups no vehicle phase leaves free of a protected green across them, given a pedestrian interval in the derived plan (${w.pedestrian_intervals.length}): ${w.pedestrian_intervals.join(', ')}`);
    if (w.lengthened.length) out.push(`    walk groups whose free phase was shorter than their pedestrian green (7 s + length ÷ 1.0 m/s), its green lengthened (${w.lengthened.length}): ${w.lengthened.join(', ')}`);
    if (w.never_free.length) out.push(`    WARNING walk groups that never walk (no phase free of a protected green across them) (${w.never_free.length}): ${w.never_free.join(', ')}`);
  }
  const u = r.unbound;
  if (u.heads.length || u.stop_lines.length || u.signs.length) out.push(`    bound to no junction: ${u.heads.length} signal heads, ${u.stop_lines.length} stop lines, ${u.signs.length} signs`);
  return out;
}
