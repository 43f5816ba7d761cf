/** Road and agent entity types, as GPUDrive numbers them (spec §5.3, §8.7). */
export const EntityType = {
  None: 0,
  RoadEdge: 1,
  RoadLine: 2,
  RoadLane: 3,
  CrossWalk: 4,
  SpeedBump: 5,
  StopSign: 6,
  Vehicle: 7,
  Pedestrian: 8,
  Cyclist: 9,
  Padding: 10,
} as const;
export type EntityTypeId = (typeof EntityType)[keyof typeof EntityType];

export const ROAD_TYPE_NAMES = ['road_edge', 'road_line', 'lane', 'crosswalk', 'speed_bump', 'stop_sign', 'driveway'] as const;
export type RoadTypeName = (typeof ROAD_TYPE_NAMES)[number];

/** JSON road type → EntityType; driveway and anything unknown → None (creates no entity). */
export function roadEntityType(type: string): EntityTypeId {
  switch (type) {
    case 'road_edge': return EntityType.RoadEdge;
    case 'road_line': return EntityType.RoadLine;
    case 'lane': return EntityType.RoadLane;
    case 'crosswalk': return EntityType.CrossWalk;
    case 'speed_bump': return EntityType.SpeedBump;
    case 'stop_sign': return EntityType.StopSign;
    default: return EntityType.None;
  }
}

export interface Point2 {
  x: number;
  y: number;
}

export interface RoadJson {
  type: string;
  geometry: Point2[];
  map_element_id?: number;
  id?: number;
}

export interface SceneObjectJson {
  position: Point2[];
  velocity: Point2[];
  heading: number[];
  valid: boolean[];
  width: number;
  length: number;
  height?: number;
  goalPosition: Point2;
  type: string;
  id?: number;
  mark_as_expert?: boolean;
}

export interface SceneMetadataJson {
  sdc_track_index?: number;
  objects_of_interest?: number[];
  tracks_to_predict?: Array<{ track_index: number; difficulty?: number }>;
}

/** A GPUDrive scene (spec §8): logged objects plus roads. */
export interface SceneJson {
  name?: string;
  scenario_id?: string;
  objects: SceneObjectJson[];
  roads: RoadJson[];
  tl_states?: unknown;
  metadata?: SceneMetadataJson;
}
