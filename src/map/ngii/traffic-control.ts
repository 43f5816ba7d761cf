/**
 * NGII layers → `traffic_control` records (src/map/traffic-control.ts): signal heads (C1_TRAFFICLIGHT), stop lines
 * (B2_SURFACELINEMARK Kind 530, which also stay in `roads` as road lines) and regulatory signs (B1_SAFETYSIGN).
 * Nothing here adds to `roads`: the policy's observation stays GPUDrive's.
 *
 * Code tables and their sources (maps/README.md says the same):
 * - C1 Type: NGII 정밀도로지도 구축 매뉴얼 (2023.07) table 9.54, as transcribed in yeonsoo-p/NGII-HD-Map-Converter
 *   (src/ngii2xodr/ngii/data/v2023/layers/c1_trafficlight.py). K-City uses 1, 2, 8, 11 and FMTC 2, 11.
 * - C1/B1 LinkID and Ref_Lane (2023 manual; not checked against the manual here): LinkID is the leftmost A2 link of
 *   the lanes the head or sign applies to, Ref_Lane the NUMBER of those lanes (참조차로수), not a lane index. K-City
 *   is looser: 77 of its 81 head LinkIDs are intersection paths that start at the stop line, 34 with a lane to their
 *   left.
 * - B1 SubType: the road-sign number of 도로교통법 시행규칙 별표 6 (1xx caution, 2xx regulatory, 3xx instruction,
 *   4xx auxiliary). The 2019 data's Type follows that numbering (K-City: Type 2 only with SubType 2xx, Type 3 only
 *   with 3xx), while the 2023 manual's table 9.40 has 2 = 지시 (instruction) and 3 = 규제 (regulatory). So the kind is
 *   decided by SubType; a sign without one (2023-model data) is skipped and counted, since Type alone cannot tell a
 *   stop sign from a yield sign.
 */
import type { SignKind, SignRecord, SignalHeadKind, SignalHeadRecord, StopLineRecord } from '../traffic-control.js';
import { FieldReader, type Properties } from './fields.js';
import type { Pt } from './geometry.js';

export interface C1Code {
  /** the manual's name */
  readonly ko: string;
  readonly head: string;
  readonly kind: SignalHeadKind;
  readonly leftArrow: boolean;
}

/** C1_TRAFFICLIGHT Type (2023 manual table 9.54). */
export const C1_TYPES: Readonly<Record<string, C1Code>> = {
  '1': { ko: '차량횡형-삼색등', head: 'vehicle_horizontal_3_colour', kind: 'vehicle', leftArrow: false },
  '2': { ko: '차량횡형-사색등A', head: 'vehicle_horizontal_4_colour_a', kind: 'vehicle', leftArrow: true },
  '3': { ko: '차량횡형-사색등B', head: 'vehicle_horizontal_4_colour_b', kind: 'vehicle', leftArrow: true },
  '4': { ko: '차량횡형-화살표삼색등', head: 'vehicle_horizontal_arrow_3_colour', kind: 'vehicle', leftArrow: true },
  '5': { ko: '차량종형-삼색등', head: 'vehicle_vertical_3_colour', kind: 'vehicle', leftArrow: false },
  '6': { ko: '차량종형-화살표삼색등', head: 'vehicle_vertical_arrow_3_colour', kind: 'vehicle', leftArrow: true },
  '7': { ko: '차량종형-사색등', head: 'vehicle_vertical_4_colour', kind: 'vehicle', leftArrow: true },
  '8': { ko: '버스삼색등', head: 'bus_3_colour', kind: 'bus', leftArrow: false },
  '9': { ko: '가변형 가변등', head: 'lane_use_control', kind: 'lane_control', leftArrow: false },
  '10': { ko: '경보형 가변등', head: 'warning_flasher', kind: 'warning', leftArrow: false },
  '11': { ko: '보행등', head: 'pedestrian', kind: 'pedestrian', leftArrow: false },
  '12': { ko: '자전거종형-삼색등', head: 'bicycle_vertical_3_colour', kind: 'bicycle', leftArrow: false },
  '13': { ko: '자전거종형-이색등', head: 'bicycle_vertical_2_colour', kind: 'bicycle', leftArrow: false },
  '14': { ko: '차량보조등-종형삼색등', head: 'vehicle_auxiliary_vertical_3_colour', kind: 'vehicle', leftArrow: false },
  '15': { ko: '차량보조등-종형사색등', head: 'vehicle_auxiliary_vertical_4_colour', kind: 'vehicle', leftArrow: true },
  '99': { ko: '기타', head: 'other', kind: 'other', leftArrow: false },
};

/** B1 SubTypes that become sign records (도로교통법 시행규칙 별표 6 numbers). */
export const B1_REGULATORY_SUBTYPES: Readonly<Record<string, { ko: string; kind: SignKind }>> = {
  '224': { ko: '최고속도제한', kind: 'speed_limit' },
  '225': { ko: '최저속도제한', kind: 'min_speed' },
  '226': { ko: '서행', kind: 'slow' },
  '227': { ko: '일시정지', kind: 'stop' },
  '228': { ko: '양보', kind: 'yield' },
};

/** The sign class from the hundreds digit of SubType (별표 6). */
export const B1_SUBTYPE_CLASSES: Readonly<Record<string, string>> = { '1': 'caution', '2': 'regulatory', '3': 'instruction', '4': 'auxiliary' };

/** B1 Type in the 2023 manual (table 9.40). The 2019 data here numbers Type like the signs: 2 regulatory, 3 instruction. */
export const B1_TYPES_2023: Readonly<Record<string, string>> = { '1': 'caution (주의)', '2': 'instruction (지시)', '3': 'regulatory (규제)', '4': 'auxiliary (보조)' };

/** What a sign's SubType is, for the summary: "224 speed_limit (최고속도제한)", "199 caution sign". */
export function subTypeLabel(subType: string): string {
  const reg = B1_REGULATORY_SUBTYPES[subType];
  if (reg) return `${subType} ${reg.kind} (${reg.ko})`;
  const cls = /^\d{3}$/.test(subType) ? B1_SUBTYPE_CLASSES[subType[0]] : undefined;
  return cls ? `${subType} ${cls} sign` : `${subType} (not a road-sign number)`;
}

/** The lanes a C1 head or B1 sign applies to: LinkID, then Ref_Lane − 1 steps along R_LinkID. */
export interface LaneChain {
  lanes: string[];
  /** LinkID is not a lane of A2 */
  missing: boolean;
  /** the R_LinkID chain ended before Ref_Lane lanes */
  short: boolean;
}

export function laneChain(linkId: string, refLane: number, rightOf: ReadonlyMap<string, string | null>): LaneChain {
  if (!linkId || !rightOf.has(linkId)) return { lanes: [], missing: true, short: false };
  const want = Number.isFinite(refLane) && refLane >= 1 ? Math.floor(refLane) : 1;
  const lanes = [linkId];
  while (lanes.length < want) {
    const r = rightOf.get(lanes[lanes.length - 1]);
    if (!r || lanes.includes(r) || !rightOf.has(r)) break;
    lanes.push(r);
  }
  return { lanes, missing: false, short: lanes.length < want };
}

/** A point feature's position; a polygon's area centroid (its vertex mean if the ring has no area). */
export function featurePosition(parts: Pt[][]): Pt | null {
  const ring = parts[0] ?? [];
  if (ring.length === 0) return null;
  if (ring.length < 3) return ring[0];
  let a = 0, cx = 0, cy = 0;
  for (let i = 0; i < ring.length; i++) {
    const [x0, y0] = ring[i];
    const [x1, y1] = ring[(i + 1) % ring.length];
    const c = x0 * y1 - x1 * y0;
    a += c;
    cx += (x0 + x1) * c;
    cy += (y0 + y1) * c;
  }
  if (Math.abs(a) > 1e-9) return [cx / (3 * a), cy / (3 * a)];
  let sx = 0, sy = 0;
  for (const [x, y] of ring) { sx += x; sy += y; }
  return [sx / ring.length, sy / ring.length];
}

/** A speed from free text ("60", "60km/h", "최고속도 50"): the first number, if it is a plausible limit. */
export function speedFromRemark(remark: string): number | undefined {
  const m = /(\d+(?:\.\d+)?)/.exec(remark);
  if (!m) return undefined;
  const v = Number(m[1]);
  return v > 0 && v <= 200 ? v : undefined;
}

export interface LaneShape {
  readonly id: string;
  readonly pts: Pt[];
}

/** How close a lane's centre line must come to a stop line to meet it [m] (lanes that end on the line, up to rounding). */
export const STOP_LINE_TOUCH_M = 0.05;
/**
 * A lane's first and last segments are extended by this much along their direction [m] before the test: K-City has
 * approach lanes that end 0.1–0.7 m short of their stop line's centre line (the paint is tens of centimetres wide).
 * Sideways there is no such reach, so the lane beside a stop line's end (1.3–1.5 m away in K-City) does not count.
 */
export const STOP_LINE_END_REACH_M = 1;
/**
 * A stop line's own R_LinkID/L_LinkID lane is kept only if it comes this close to the line [m] (its ends reaching 1 m
 * as above) at more than 45° to it. In K-City 5 of the 38 references name a lane that meets its line; the others name
 * an intersection path that runs along the line 2–9 m away (0–44°) or passes the line's end 1.4–2.3 m away: a car on
 * it does not stop at this line.
 */
export const STOP_LINE_REFERENCE_MAX_M = 1;
/** A lane meets a stop line only at more than this angle [deg]: one running along the line does not. */
export const STOP_LINE_MIN_ANGLE_DEG = 45;

function pointSegmentDistance(p: Pt, a: Pt, b: Pt): number {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2)) : 0;
  return Math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}

const orient = (a: Pt, b: Pt, c: Pt) => (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);

/** The distance between segments ab and cd (0 when they cross). */
function segmentDistance(a: Pt, b: Pt, c: Pt, d: Pt): number {
  const o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b);
  if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) return 0;
  return Math.min(pointSegmentDistance(c, a, b), pointSegmentDistance(d, a, b), pointSegmentDistance(a, c, d), pointSegmentDistance(b, c, d));
}

/** The acute angle between the directions of two segments [deg]. */
function lineAngleDeg(a: Pt, b: Pt, c: Pt, d: Pt): number {
  const ux = b[0] - a[0], uy = b[1] - a[1], vx = d[0] - c[0], vy = d[1] - c[1];
  const ang = Math.abs(Math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)) * (180 / Math.PI);
  return Math.min(ang, 180 - ang);
}

/** The polyline with its first and last segments lengthened by `reach` [m]. */
function extendEnds(pts: Pt[], reach: number): Pt[] {
  const n = pts.length;
  const out = pts.slice();
  const a = pts[0], b = pts[1], la = Math.hypot(b[0] - a[0], b[1] - a[1]);
  const c = pts[n - 2], d = pts[n - 1], lb = Math.hypot(d[0] - c[0], d[1] - c[1]);
  if (la > 0) out[0] = [a[0] - ((b[0] - a[0]) / la) * reach, a[1] - ((b[1] - a[1]) / la) * reach];
  if (lb > 0) out[n - 1] = [d[0] + ((d[0] - c[0]) / lb) * reach, d[1] + ((d[1] - c[1]) / lb) * reach];
  return out;
}

interface Box { minX: number; minY: number; maxX: number; maxY: number }
function box(pts: Pt[], pad = 0): Box {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of pts) { minX = Math.min(minX, x); minY = Math.min(minY, y); maxX = Math.max(maxX, x); maxY = Math.max(maxY, y); }
  return { minX: minX - pad, minY: minY - pad, maxX: maxX + pad, maxY: maxY + pad };
}
const overlap = (p: Box, q: Box) => p.minX <= q.maxX && q.minX <= p.maxX && p.minY <= q.maxY && q.minY <= p.maxY;

/**
 * Lanes whose centre line meets a stop line: crosses it, or ends or starts on it (NGII approach lanes end at the stop
 * line and the intersection paths begin there; an end up to 1 m short counts), at more than 45° to it. In the order
 * of `lanes`.
 */
export class StopLineMatcher {
  private readonly boxes: Array<{ lane: LaneShape; box: Box }>;
  private readonly byId = new Map<string, Pt[]>();

  constructor(lanes: readonly LaneShape[]) {
    this.boxes = lanes.filter((l) => l.pts.length >= 2).map((l) => {
      const lane = { id: l.id, pts: extendEnds(l.pts, STOP_LINE_END_REACH_M) };
      this.byId.set(lane.id, lane.pts);
      return { lane, box: box(lane.pts) };
    });
  }

  /** Where the lane comes closest to the line: how far [m], at what angle [deg] (the largest among the closest). */
  nearest(laneId: string, line: Pt[]): { distance: number; angle: number } | null {
    const pts = this.byId.get(laneId);
    if (!pts) return null;
    let distance = Infinity, angle = 0;
    for (let j = 1; j < line.length; j++) {
      for (let i = 1; i < pts.length; i++) {
        const d = segmentDistance(pts[i - 1], pts[i], line[j - 1], line[j]);
        const a = lineAngleDeg(pts[i - 1], pts[i], line[j - 1], line[j]);
        if (d < distance - 1e-3) {
          distance = d;
          angle = a;
        } else if (d <= distance + 1e-3) {
          distance = Math.min(distance, d);
          angle = Math.max(angle, a);
        }
      }
    }
    return { distance, angle };
  }

  lanesCrossing(line: Pt[]): string[] {
    const out: string[] = [];
    const lb = box(line, STOP_LINE_TOUCH_M);
    for (const { lane, box: b } of this.boxes) {
      if (!overlap(lb, b)) continue;
      if (this.meets(lane.pts, line)) out.push(lane.id);
    }
    return out;
  }

  private meets(pts: Pt[], line: Pt[]): boolean {
    for (let j = 1; j < line.length; j++) {
      const c = line[j - 1], d = line[j];
      const sb = box([c, d], STOP_LINE_TOUCH_M);
      for (let i = 1; i < pts.length; i++) {
        const a = pts[i - 1], b = pts[i];
        if (Math.max(a[0], b[0]) < sb.minX || Math.min(a[0], b[0]) > sb.maxX || Math.max(a[1], b[1]) < sb.minY || Math.min(a[1], b[1]) > sb.maxY) continue;
        if (segmentDistance(a, b, c, d) <= STOP_LINE_TOUCH_M && lineAngleDeg(a, b, c, d) > STOP_LINE_MIN_ANGLE_DEG) return true;
      }
    }
    return false;
  }
}

/** How the stop lines got their lanes (for the converter's summary). */
export interface StopLineAttachment {
  total: number;
  /** at least one lane from the line's own R_LinkID/L_LinkID */
  byReference: number;
  /** no usable reference, lanes from the geometry alone */
  byGeometry: number;
  /** of those with references, how many got further lanes from the geometry */
  referenceAndGeometry: number;
  /** no lane at all */
  unattached: number;
  /** R_LinkID/L_LinkID values that are not lanes of A2 (ignored) */
  danglingReferences: number;
  /** R_LinkID/L_LinkID lanes that run along the line or pass it by (further than 1 m, or within 45° of it): ignored */
  referencesNotAcross: number;
}

export function emptyStopLineAttachment(): StopLineAttachment {
  return { total: 0, byReference: 0, byGeometry: 0, referenceAndGeometry: 0, unattached: 0, danglingReferences: 0, referencesNotAcross: 0 };
}

/**
 * One stop line: its own references (R_LinkID, L_LinkID) that are lanes crossing near it, then the lanes its geometry
 * meets, without repeats.
 */
export function stopLineRecord(id: string, geometry: Array<{ x: number; y: number }>, refs: string[], line: Pt[], matcher: StopLineMatcher, tally: StopLineAttachment): StopLineRecord {
  const byRef: string[] = [];
  for (const r of refs) {
    if (!r || byRef.includes(r)) continue;
    const near = matcher.nearest(r, line);
    if (!near) {
      tally.danglingReferences++;
      continue;
    }
    if (near.distance > STOP_LINE_REFERENCE_MAX_M || near.angle <= STOP_LINE_MIN_ANGLE_DEG) {
      tally.referencesNotAcross++;
      continue;
    }
    byRef.push(r);
  }
  const byGeo = matcher.lanesCrossing(line).filter((l) => !byRef.includes(l));
  tally.total++;
  if (byRef.length > 0) {
    tally.byReference++;
    if (byGeo.length > 0) tally.referenceAndGeometry++;
  } else if (byGeo.length > 0) tally.byGeometry++;
  else tally.unattached++;
  return { id, geometry, lanes: [...byRef, ...byGeo] };
}

/** The part of a layer's summary these converters fill in (convert.ts LayerSummary). */
export interface LayerTally {
  written: number;
  skipped: Record<string, number>;
  codes: Record<string, number>;
  /** how the records got their lanes */
  lanes?: Record<string, number>;
}

export interface LocalFeature {
  readonly properties: Properties;
  /** in the local frame */
  readonly parts: Pt[][];
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const inc = (o: Record<string, number>, k: string, n = 1) => {
  o[k] = (o[k] ?? 0) + n;
};

/** Ids must be present and unique (parseTrafficControl insists): the rest are skipped and counted. */
function takeId(id: string, seen: Set<string>, s: LayerTally): boolean {
  if (!id) {
    inc(s.skipped, 'no ID');
    return false;
  }
  if (seen.has(id)) {
    inc(s.skipped, 'duplicate ID');
    return false;
  }
  seen.add(id);
  return true;
}

/** The summary's key for records whose LinkID is not a lane (the converter warns about them). */
export const LINK_NOT_A_LANE = 'LinkID not a lane of A2_LINK (no lanes)';

function chainTally(chain: LaneChain, linkId: string, s: LayerTally): void {
  s.lanes ??= {};
  if (chain.missing) inc(s.lanes, linkId ? LINK_NOT_A_LANE : 'no LinkID (no lanes)');
  else if (chain.short) inc(s.lanes, 'R_LinkID chain ended before Ref_Lane lanes (kept what there is)');
  else inc(s.lanes, 'LinkID + Ref_Lane − 1 right neighbours');
}

/** C1_TRAFFICLIGHT → signal heads. `rightOf`: each A2 lane's R_LinkID (null at the right edge). */
export function convertSignalHeads(features: readonly LocalFeature[], rightOf: ReadonlyMap<string, string | null>, s: LayerTally, unknownCodes: Record<string, number>): SignalHeadRecord[] {
  const f = new FieldReader(features[0]?.properties ?? {});
  const seen = new Set<string>();
  const out: SignalHeadRecord[] = [];
  for (const feat of features) {
    const p = feat.properties;
    const id = f.str(p, 'ID');
    const at = featurePosition(feat.parts);
    if (!at) {
      inc(s.skipped, 'no position');
      continue;
    }
    if (!takeId(id, seen, s)) continue;
    const code = f.str(p, 'Type');
    const known = C1_TYPES[code];
    inc(s.codes, `Type ${code || '(empty)'} ${known ? `${known.head} (${known.ko})` : 'unknown → other'}`);
    if (!known) inc(unknownCodes, `C1 Type ${code || '(empty)'} → signal head kind other`);
    const linkId = f.str(p, 'LinkID');
    const chain = laneChain(linkId, f.num(p, 'Ref_Lane'), rightOf);
    chainTally(chain, linkId, s);
    const head: SignalHeadRecord = {
      id, x: r3(at[0]), y: r3(at[1]), ...(code ? { code } : {}),
      head: known?.head ?? 'unknown', kind: known?.kind ?? 'other', left_arrow: known?.leftArrow ?? false, lanes: chain.lanes,
    };
    const post = f.str(p, 'PostID');
    if (post) head.post = post;
    out.push(head);
    s.written++;
  }
  return out;
}

/** B1_SAFETYSIGN → the regulatory signs VILS uses (stop, yield, speed limits, slow); the rest are counted. */
export function convertSigns(features: readonly LocalFeature[], rightOf: ReadonlyMap<string, string | null>, s: LayerTally): SignRecord[] {
  const f = new FieldReader(features[0]?.properties ?? {});
  const seen = new Set<string>();
  const out: SignRecord[] = [];
  for (const feat of features) {
    const p = feat.properties;
    const type = f.str(p, 'Type');
    const subType = f.str(p, 'SubType');
    inc(s.codes, subType ? `SubType ${subTypeLabel(subType)}` : `Type ${type || '(empty)'} without SubType`);
    if (!subType) {
      // 2023-model data: Type alone (table 9.40: 3 = 규제) cannot tell stop from yield
      inc(s.skipped, `no SubType (Type ${type || '(empty)'} ${B1_TYPES_2023[type] ?? 'unknown'} per the 2023 manual; which sign is unknown)`);
      continue;
    }
    const reg = B1_REGULATORY_SUBTYPES[subType];
    if (!reg) {
      inc(s.skipped, `SubType ${subTypeLabel(subType)}`);
      continue;
    }
    const at = featurePosition(feat.parts);
    if (!at) {
      inc(s.skipped, 'no position');
      continue;
    }
    const id = f.str(p, 'ID');
    if (!takeId(id, seen, s)) continue;
    const linkId = f.str(p, 'LinkID');
    const chain = laneChain(linkId, f.num(p, 'Ref_Lane'), rightOf);
    chainTally(chain, linkId, s);
    const sign: SignRecord = { id, x: r3(at[0]), y: r3(at[1]), code: subType, kind: reg.kind, lanes: chain.lanes };
    if (reg.kind === 'speed_limit' || reg.kind === 'min_speed') {
      // the 2023 manual puts a speed sign's value in Remark (empty in K-City)
      const kmh = speedFromRemark(f.str(p, 'Remark'));
      if (kmh !== undefined) sign.value_kmh = kmh;
    }
    out.push(sign);
    s.written++;
  }
  return out;
}
