/**
 * NGII code lists → GPUDrive/Waymax road types and map_element_ids (spec ngii-hdmap.md §5, gpudrive §8.8).
 */

/** B2 Type (colour · single/double · pattern) → Waymax road-line id; null for unknown codes. */
export function roadLineElementId(type: string): number | null {
  if (type === '999') return 5; // other/none (stop and guide lines in some releases): ROAD_LINE_UNKNOWN
  const m = /^([123])([12])([1234])$/.exec(type);
  if (!m) return null;
  const yellow = m[1] === '1';
  const double = m[2] === '2';
  const pattern = m[3]; // 1 solid, 2 dashed, 3/4 mixed
  if (yellow) {
    if (!double) return pattern === '1' ? 11 : 9; // SOLID_SINGLE_YELLOW / BROKEN_SINGLE_YELLOW
    if (pattern === '1') return 12; // SOLID_DOUBLE_YELLOW
    if (pattern === '2') return 10; // BROKEN_DOUBLE_YELLOW
    return 13; // PASSING_DOUBLE_YELLOW (one side dashed)
  }
  // white and blue (bus lane) lines; Waymax has no blue
  if (!double) return pattern === '1' ? 7 : 6; // SOLID_SINGLE_WHITE / BROKEN_SINGLE_WHITE
  return pattern === '2' ? 6 : 8; // no BROKEN_DOUBLE_WHITE in Waymax: broken; solid or mixed: SOLID_DOUBLE_WHITE
}

export const B2_KIND_NAMES: Record<string, string> = {
  '501': 'centre line', '5011': 'reversible lane line', '502': 'U-turn zone line', '503': 'lane line',
  '504': 'bus-only lane line', '505': 'road-edge line', '506': 'no-lane-change line', '515': 'no-stopping line',
  '525': 'guide line', '530': 'stop line', '531': 'safety zone', '535': 'bicycle road', '599': 'other',
};

export const C3_TYPE_NAMES: Record<string, string> = {
  '2': 'guardrail', '3': 'concrete barrier', '4': 'concrete curb', '5': 'anti-jaywalking fence',
  '6': 'median opening', '7': 'temporary structure', '8': 'wall', '99': 'other',
};

/** C3 types that are not barriers a car drives along: a median opening is where cars cross the median. */
export const C3_NOT_AN_EDGE = new Set(['6']);

export const A2_LINK_TYPE_NAMES: Record<string, string> = {
  '1': 'intersection path', '2': 'toll lane (hi-pass)', '3': 'toll lane', '4': 'bus-only', '5': 'reversible',
  '6': 'driving lane', '7': 'rest-area entry', '8': 'rest area', '9': 'rest-area exit', '10': 'shelter entry',
  '11': 'shelter', '12': 'shelter exit', '13': 'intersection entry', '14': 'intersection exit', '99': 'other',
};

/** A2 RoadType. */
export const A2_ROAD_TYPE_NAMES: Record<string, string> = { '1': 'ordinary road', '2': 'tunnel', '3': 'bridge', '4': 'underpass', '5': 'overpass' };

/**
 * A lane is on a structure (lane graph `level` 1) when its RoadType is 2–5, or when both its nodes start or end a
 * structure: A1 NodeType 3 tunnel, 4 bridge, 5 underpass, 6 overpass (K-City marks its underpass only by its
 * nodes). The loader's fallback for maps without `level` (scene-json.ts markStructureLanes) uses the same node types.
 */
export const STRUCTURE_ROAD_TYPES = new Set(['2', '3', '4', '5']);
export const STRUCTURE_NODE_TYPES = new Set(['3', '4', '5', '6']);

/** Waymax lane ids: RoadRank 1 (expressway) → FREEWAY, else SURFACE_STREET. */
export function laneElementId(roadRank: string): number {
  return roadRank === '1' ? 1 : 2;
}

export const DEFAULT_SPEED_LIMIT_KMH = 50;
export const POCKET_LANE_MIN = 90;
