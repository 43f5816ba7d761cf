/**
 * Generates maps/demo-track.json: VILS's own test track (authored by the project, freely usable).
 *
 * A one-way two-lane circuit in a figure of eight (3.75 m lanes, both in the direction of travel) whose
 * two lobes cross at right angles in a four-way intersection at the FMTC origin. Each lobe is a straight,
 * a 270° curve of radius 60 m and a straight back (≈ 805 m per lane). Broken white line between the
 * lanes, solid white edge lines, road edges 1.5 m beyond them (interrupted through the intersection), a
 * signal head and a stop line on each of the two approaches to the crossing (`traffic_control`: VILS gives the
 * crossing a fixed-time plan), a crosswalk on each intersection arm and a speed bump on one straight.
 * One-way, because the GPUDrive policy keeps to its goal, not to its lane: on a two-way road its lateral
 * wander of a metre or two brings it into oncoming traffic.
 *
 *   node dist/converters/demo-track.js [--out maps/demo-track.json]
 */
import { FMTC_ORIGIN, GeoFrame } from '../geo/frame.js';

const R = 60; // curve radius = straight length, so each lobe closes on the crossing (see docs/maps.md)
const LANE_W = 3.75;
const EDGE_OFFSET = LANE_W + 2.5; // 2.5 m shoulders outside the edge lines
const STEP = 2.0; // metres between polyline points
const BOX = 7.0; // half-size of the intersection box (rotated 45°) where lines and edges stop
const STOP_LINE_BACK = 4.5; // stop lines this far outside the box, behind the crosswalks
const STRAIGHT_SPEED = 50 / 3.6;
const CURVE_SPEED = 30 / 3.6;

interface Pose { x: number; y: number; h: number } // h: heading of travel, rad CCW from +x

type Piece = { kind: 'straight' | 'curve'; poses: Pose[] };

function straight(from: Pose, length: number): Piece {
  const n = Math.max(1, Math.round(length / STEP));
  const poses: Pose[] = [];
  for (let i = 0; i <= n; i++) {
    const s = (length * i) / n;
    poses.push({ x: from.x + s * Math.cos(from.h), y: from.y + s * Math.sin(from.h), h: from.h });
  }
  return { kind: 'straight', poses };
}

/** Arc turning by `sweep` rad (positive: left/CCW). */
function arc(from: Pose, radius: number, sweep: number): Piece {
  const side = Math.sign(sweep);
  const cx = from.x - side * radius * Math.sin(from.h);
  const cy = from.y + side * radius * Math.cos(from.h);
  const n = Math.max(2, Math.round((Math.abs(sweep) * radius) / STEP));
  const poses: Pose[] = [];
  for (let i = 0; i <= n; i++) {
    const h = from.h + (sweep * i) / n;
    poses.push({ x: cx + side * radius * Math.sin(h), y: cy - side * radius * Math.cos(h), h });
  }
  return { kind: 'curve', poses };
}

/** The centre line of the figure of eight, forward direction, as six pieces starting at the crossing. */
function centreLine(): Piece[] {
  const pieces: Piece[] = [];
  let p: Pose = { x: 0, y: 0, h: Math.PI / 4 };
  const push = (piece: Piece) => {
    pieces.push(piece);
    p = piece.poses[piece.poses.length - 1];
  };
  push(straight(p, R));
  push(arc(p, R, (3 * Math.PI) / 2));
  push(straight(p, R));
  push(straight(p, R));
  push(arc(p, R, (-3 * Math.PI) / 2));
  push(straight(p, R));
  return pieces;
}

const offset = (poses: Pose[], d: number): Pose[] =>
  poses.map((q) => ({ x: q.x - d * Math.sin(q.h), y: q.y + d * Math.cos(q.h), h: q.h })); // d > 0: left

const round = (v: number) => Math.round(v * 1000) / 1000;
const pts = (poses: Pose[]) => poses.map((q) => ({ x: round(q.x), y: round(q.y) }));

/** Splits a polyline where it enters the intersection box; returns the pieces outside it. */
function outsideBox(poses: Pose[]): Pose[][] {
  const c = Math.SQRT1_2;
  const inside = (q: Pose) => Math.abs(c * q.x + c * q.y) < BOX && Math.abs(-c * q.x + c * q.y) < BOX;
  const runs: Pose[][] = [];
  let run: Pose[] = [];
  for (const q of poses) {
    if (inside(q)) {
      if (run.length >= 2) runs.push(run);
      run = [];
    } else run.push(q);
  }
  if (run.length >= 2) runs.push(run);
  return runs;
}

function lengthOf(poses: Pose[]): number {
  let s = 0;
  for (let i = 1; i < poses.length; i++) s += Math.hypot(poses[i].x - poses[i - 1].x, poses[i].y - poses[i - 1].y);
  return s;
}

export function buildDemoTrack() {
  const geo = new GeoFrame(FMTC_ORIGIN);
  const pieces = centreLine();
  const roads: Array<{ type: string; geometry: Array<{ x: number; y: number }>; map_element_id: number; id: number }> = [];
  const lanes: Array<Record<string, unknown>> = [];
  const add = (type: string, poses: Pose[], mapElementId: number) => {
    roads.push({ type, geometry: pts(poses), map_element_id: mapElementId, id: roads.length });
    return roads.length - 1;
  };

  // Two lanes, both in the direction of travel (a one-way circuit): right lane R*, left lane L*.
  const rightIds = pieces.map((_, i) => `R${i + 1}`);
  const leftIds = pieces.map((_, i) => `L${i + 1}`);
  pieces.forEach((piece, i) => {
    const n = pieces.length;
    const speed = piece.kind === 'curve' ? CURVE_SPEED : STRAIGHT_SPEED;
    for (const [ids, other, side] of [[rightIds, leftIds, -1], [leftIds, rightIds, 1]] as const) {
      const poses = offset(piece.poses, (side * LANE_W) / 2);
      lanes.push({
        id: ids[i], road_index: add('lane', poses, 2), from_node: `N${side > 0 ? 'L' : 'R'}${i}`, to_node: `N${side > 0 ? 'L' : 'R'}${(i + 1) % n}`,
        next: [ids[(i + 1) % n]], left: side < 0 ? other[i] : null, right: side > 0 ? other[i] : null,
        length: round(lengthOf(poses)), speed_limit: round(speed), pocket: false,
      });
    }
  });

  // Whole-loop polylines for lines and edges, cut at the intersection.
  const loop: Pose[] = [];
  for (const piece of pieces) loop.push(...(loop.length ? piece.poses.slice(1) : piece.poses));
  for (const run of outsideBox(loop)) add('road_line', run, 6); // broken single white between the lanes
  for (const side of [1, -1]) {
    for (const run of outsideBox(offset(loop, side * LANE_W))) add('road_line', run, 7); // solid single white
    for (const run of outsideBox(offset(loop, side * EDGE_OFFSET))) add('road_edge', run, 15);
  }

  // Signals at the crossing: one head on each of the two approaches (the other two arms are exits of the one-way
  // circuit), beside the right-hand road edge before the crosswalk, with a stop line across both lanes.
  const signals: Array<Record<string, unknown>> = [];
  const stopLines: Array<Record<string, unknown>> = [];
  const approaches: Array<[number, string[]]> = [[Math.PI / 4, [rightIds[5], leftIds[5]]], [-Math.PI / 4, [rightIds[2], leftIds[2]]]];
  for (const [h, laneIds] of approaches) {
    const back = BOX + 4;
    const side = EDGE_OFFSET + 1;
    const c = Math.cos(h), sn = Math.sin(h);
    signals.push({
      id: `S${signals.length + 1}`, x: round(-back * c + side * sn), y: round(-back * sn - side * c),
      head: 'vehicle_horizontal_3_colour', kind: 'vehicle', left_arrow: false, lanes: laneIds,
    });
    const at = BOX + STOP_LINE_BACK;
    stopLines.push({
      id: `L${stopLines.length + 1}`,
      geometry: [-1, 1].map((k) => ({ x: round(-at * c + k * LANE_W * sn), y: round(-at * sn - k * LANE_W * c) })),
      lanes: laneIds,
    });
  }
  // Crosswalks just outside the box on the four arms, and a speed bump on the first straight.
  const box = (cx: number, cy: number, h: number, halfAlong: number, halfAcross: number): Pose[] => {
    const c = Math.cos(h), s = Math.sin(h);
    return [[-1, -1], [1, -1], [1, 1], [-1, 1]].map(([a, b]) => ({ x: cx + a * halfAlong * c - b * halfAcross * s, y: cy + a * halfAlong * s + b * halfAcross * c, h }));
  };
  for (const h of [Math.PI / 4, (3 * Math.PI) / 4, (5 * Math.PI) / 4, (7 * Math.PI) / 4]) {
    add('crosswalk', box((BOX + 2) * Math.cos(h), (BOX + 2) * Math.sin(h), h + Math.PI / 2, EDGE_OFFSET, 1.5), 18);
  }
  const bump = pieces[0].poses[Math.floor(pieces[0].poses.length * 0.6)];
  add('speed_bump', box(bump.x, bump.y, bump.h, 0.5, EDGE_OFFSET - 0.3), 19);

  const counts: Record<string, number> = {};
  for (const r of roads) counts[r.type] = (counts[r.type] ?? 0) + 1;
  return {
    name: 'demo-track',
    map: {
      name: 'demo-track',
      description: 'VILS demo track: one-way two-lane figure-of-eight circuit with a four-way intersection, near the FMTC origin',
      crs: 'local metres (x east, y grid north) about origin, UTM zone 52N grid (EPSG:32652)',
      origin: { lat: FMTC_ORIGIN.lat, lon: FMTC_ORIGIN.lon, utm_e: round(geo.originUtm.easting), utm_n: round(geo.originUtm.northing) },
      source: 'converters/demo-track.ts (generated; authored by the VILS project)',
      counts,
      lane_graph: { lanes },
    },
    roads,
    traffic_control: { signals, stop_lines: stopLines, signs: [] },
  };
}
