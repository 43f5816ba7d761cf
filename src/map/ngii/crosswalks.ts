/**
 * NGII B3_SURFACEMARK → `traffic_control.crosswalks` (src/map/traffic-control.ts CrosswalkRecord). Never `roads`:
 * the policy's observation stays GPUDrive's.
 *
 * B3 Kind codes (NGII 정밀도로지도 구축 매뉴얼 2023 B3 table, as transcribed in yeonsoo-p/NGII-HD-Map-Converter
 * src/ngii2xodr/ngii/data/v2023/layers/b3_surfacemark.py; the numbers are the road-marking numbers of 도로교통법
 * 시행규칙 별표 6: 532 횡단보도, 533 고원식횡단보도, 534 자전거횡단도):
 * - Type 5 Kind 5321 횡단보도 (pedestrian crossing): carried, one record per polygon (K-City 53, FMTC 19).
 * - Type 5 Kind 533 고원식횡단보도 (raised crossing): carried the same way (none in K-City or FMTC).
 * - Type 5 Kind 534 자전거횡단도 (bicycle crossing, painted beside a pedestrian crossing as a row of squares; one
 *   multi-part polygon, K-City 10, FMTC 3): NOT carried — people walk the pedestrian crossing beside it, and VILS
 *   has no cyclists on crossings yet. Counted in the summary.
 * - Type 1 (arrows, 537x/538x/539x/543x): lane-use arrows, not crossings; counted only.
 */
import { crosswalkGeometry, type CrosswalkLane } from '../crosswalks.js';
import type { CrosswalkRecord } from '../traffic-control.js';
import { FieldReader } from './fields.js';
import { dedupe, type Pt } from './geometry.js';
import type { LayerTally, LocalFeature } from './traffic-control.js';

/** B3 Kinds that are pedestrian crossings (carried). */
export const B3_CROSSWALK_KINDS: Readonly<Record<string, string>> = { '5321': 'pedestrian crossing (횡단보도)', '533': 'raised pedestrian crossing (고원식횡단보도)' };
/** B3 Kind of a bicycle crossing (자전거횡단도): not carried. */
export const B3_BICYCLE_CROSSING_KIND = '534';

export const B3_KIND_NAMES: Readonly<Record<string, string>> = {
  ...B3_CROSSWALK_KINDS, '534': 'bicycle crossing (자전거횡단도)',
  '5371': 'arrow: straight', '5372': 'arrow: left', '5373': 'arrow: right', '5374': 'arrow: left and right', '5379': 'arrow: all ways',
  '5381': 'arrow: straight and left', '5382': 'arrow: straight and right', '5383': 'arrow: straight and U-turn', '5391': 'arrow: U-turn',
  '5392': 'arrow: left and U-turn', '5431': 'arrow: merge left', '5432': 'arrow: merge right', '544': 'uphill', '599': 'other',
};

/** How the crosswalks' axes were found and how many cross a lane (for the converter's summary). */
export interface CrosswalkTally {
  total: number;
  /** axis across the lanes that pass through it */
  axisFromLanes: number;
  /** no lane passes through: axis along the outline's long side */
  axisFromLongSide: number;
  /** crosswalks with at least one lane crossing them */
  withLanes: number;
  /** lane crossings summed over all crosswalks */
  laneCrossings: number;
  /** B3 Kind 534 bicycle crossings seen (not carried) */
  bicycleCrossings: number;
}

export function emptyCrosswalkTally(): CrosswalkTally {
  return { total: 0, axisFromLanes: 0, axisFromLongSide: 0, withLanes: 0, laneCrossings: 0, bicycleCrossings: 0 };
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const inc = (o: Record<string, number>, k: string, n = 1) => {
  o[k] = (o[k] ?? 0) + n;
};

/** B3 polygons of a crossing Kind → crosswalk records; the rest counted by Kind. Features in the local frame. */
export function convertCrosswalks(features: readonly LocalFeature[], lanes: readonly CrosswalkLane[], s: LayerTally, tally: CrosswalkTally): CrosswalkRecord[] {
  const f = new FieldReader(features[0]?.properties ?? {});
  const seen = new Set<string>();
  const out: CrosswalkRecord[] = [];
  for (const feat of features) {
    const p = feat.properties;
    const kind = f.str(p, 'Kind');
    inc(s.codes, `Kind ${kind || '(empty)'}${B3_KIND_NAMES[kind] ? ` ${B3_KIND_NAMES[kind]}` : ''}`);
    if (kind === B3_BICYCLE_CROSSING_KIND) tally.bicycleCrossings++;
    if (!B3_CROSSWALK_KINDS[kind]) {
      inc(s.skipped, kind === B3_BICYCLE_CROSSING_KIND ? 'Kind 534 bicycle crossing (not carried)' : 'not a crossing (arrows and other marks)');
      continue;
    }
    const id = f.str(p, 'ID');
    if (!id) {
      inc(s.skipped, 'crossing without ID');
      continue;
    }
    if (seen.has(id)) {
      inc(s.skipped, 'crossing with a duplicate ID');
      continue;
    }
    // the outer ring, without its closing repeat
    const ring = dedupe(feat.parts[0] ?? []).points;
    if (ring.length > 1 && ring[0][0] === ring[ring.length - 1][0] && ring[0][1] === ring[ring.length - 1][1]) ring.pop();
    if (ring.length > 2 && Math.hypot(ring[0][0] - ring[ring.length - 1][0], ring[0][1] - ring[ring.length - 1][1]) < 1e-3) ring.pop();
    if (ring.length < 3) {
      inc(s.skipped, 'crossing with fewer than 3 distinct vertices');
      continue;
    }
    if (feat.parts.length > 1) inc(s.codes, 'crossing with more than one ring (outer ring kept)');
    seen.add(id);
    const g = crosswalkGeometry(ring, lanes);
    tally.total++;
    if (g.axisFrom === 'lanes') tally.axisFromLanes++;
    else tally.axisFromLongSide++;
    if (g.lanes.length) tally.withLanes++;
    tally.laneCrossings += g.lanes.length;
    out.push({
      id, polygon: ring.map(([x, y]: Pt) => ({ x: r3(x), y: r3(y) })),
      a: { x: r3(g.a[0]), y: r3(g.a[1]) }, b: { x: r3(g.b[0]), y: r3(g.b[1]) },
      length: r3(g.length), width: r3(g.width), lanes: g.lanes,
    });
    s.written++;
  }
  return out;
}
