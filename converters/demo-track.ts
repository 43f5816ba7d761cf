/**
 * Generates maps/demo-track.json: VILS's own test track (authored by the project, freely usable).
 *
 * A figure-of-eight two-lane road (one lane each way, 3.5 m lanes, right-hand traffic) whose two lobes
 * cross at right angles in a four-way intersection at the FMTC origin. Each lobe is a straight, a 270°
 * curve of radius 60 m and a straight back (≈ 805 m of road in all). Double yellow centre line, white
 * edge lines, road edges 4 m from the centre line (interrupted through the intersection), stop signs on
 * the four approaches, a crosswalk on each intersection exit and a speed bump on one straight.
 *
 *   node dist/converters/demo-track.js [--out maps/demo-track.json]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FMTC_ORIGIN, GeoFrame } from '../src/geo/frame.js';

const R = 60; // curve radius = straight length, so each lobe closes on the crossing (see README)
const LANE_W = 3.5;
const EDGE_OFFSET = 4.0;
const STEP = 2.0; // metres between polyline points
const BOX = 6.0; // half-size of the intersection box (rotated 45°) where lines and edges stop
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

  // Lanes: forward (right of the centre line) and reverse (left of it, travelling the other way).
  const forwardIds = pieces.map((_, i) => `F${i + 1}`);
  const reverseIds = pieces.map((_, i) => `R${i + 1}`);
  pieces.forEach((piece, i) => {
    const fwd = offset(piece.poses, -LANE_W / 2);
    const rev = offset(piece.poses, LANE_W / 2).reverse().map((q) => ({ ...q, h: q.h + Math.PI }));
    const speed = piece.kind === 'curve' ? CURVE_SPEED : STRAIGHT_SPEED;
    const n = pieces.length;
    lanes.push({
      id: forwardIds[i], road_index: add('lane', fwd, 2), from_node: `NF${i}`, to_node: `NF${(i + 1) % n}`,
      next: [forwardIds[(i + 1) % n]], left: null, right: null, length: round(lengthOf(fwd)), speed_limit: round(speed), pocket: false,
    });
    lanes.push({
      id: reverseIds[i], road_index: add('lane', rev, 2), from_node: `NR${(i + 1) % n}`, to_node: `NR${i}`,
      next: [reverseIds[(i - 1 + n) % n]], left: null, right: null, length: round(lengthOf(rev)), speed_limit: round(speed), pocket: false,
    });
  });

  // Whole-loop polylines for lines and edges, cut at the intersection.
  const loop: Pose[] = [];
  for (const piece of pieces) loop.push(...(loop.length ? piece.poses.slice(1) : piece.poses));
  for (const run of outsideBox(loop)) add('road_line', run, 12); // solid double yellow
  for (const side of [1, -1]) {
    for (const run of outsideBox(offset(loop, side * LANE_W))) add('road_line', run, 7); // solid single white
    for (const run of outsideBox(offset(loop, side * EDGE_OFFSET))) add('road_edge', run, 15);
  }

  // Stop signs on the four approaches, right of the lane, 8 m before the crossing centre.
  for (const h of [Math.PI / 4, (3 * Math.PI) / 4, (5 * Math.PI) / 4, (7 * Math.PI) / 4]) {
    const back = 8.5;
    const x = -back * Math.cos(h) + 5.0 * Math.sin(h);
    const y = -back * Math.sin(h) - 5.0 * Math.cos(h);
    add('stop_sign', [{ x, y, h: 0 }], 17);
  }
  // Crosswalks just outside the box on the four arms, and a speed bump on the first straight.
  const box = (cx: number, cy: number, h: number, halfAlong: number, halfAcross: number): Pose[] => {
    const c = Math.cos(h), s = Math.sin(h);
    return [[-1, -1], [1, -1], [1, 1], [-1, 1]].map(([a, b]) => ({ x: cx + a * halfAlong * c - b * halfAcross * s, y: cy + a * halfAlong * s + b * halfAcross * c, h }));
  };
  for (const h of [Math.PI / 4, (3 * Math.PI) / 4, (5 * Math.PI) / 4, (7 * Math.PI) / 4]) {
    add('crosswalk', box(8 * Math.cos(h), 8 * Math.sin(h), h + Math.PI / 2, EDGE_OFFSET, 1.5), 18);
  }
  const bump = pieces[0].poses[Math.floor(pieces[0].poses.length * 0.6)];
  add('speed_bump', box(bump.x, bump.y, bump.h, 0.5, EDGE_OFFSET - 0.3), 19);

  const counts: Record<string, number> = {};
  for (const r of roads) counts[r.type] = (counts[r.type] ?? 0) + 1;
  return {
    name: 'demo-track',
    map: {
      name: 'demo-track',
      description: 'VILS demo track: figure-of-eight two-lane road with a four-way intersection, near the FMTC origin',
      crs: 'local metres (x east, y grid north) about origin, UTM zone 52N grid (EPSG:32652)',
      origin: { lat: FMTC_ORIGIN.lat, lon: FMTC_ORIGIN.lon, utm_e: round(geo.originUtm.easting), utm_n: round(geo.originUtm.northing) },
      source: 'converters/demo-track.ts (generated; authored by the VILS project)',
      counts,
      lane_graph: { lanes },
    },
    roads,
  };
}

const invokedDirectly = process.argv[1]?.endsWith('demo-track.js');
if (invokedDirectly) {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { out: { type: 'string' } } });
  const out = values.out ?? 'maps/demo-track.json';
  const track = buildDemoTrack();
  writeFileSync(out, `${JSON.stringify(track)}\n`);
  console.log(`wrote ${out}: ${track.roads.length} roads ${JSON.stringify(track.map.counts)}, ${track.map.lane_graph.lanes.length} lanes`);
}
