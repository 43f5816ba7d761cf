/**
 * GET /api/map's reply as a JSON schema (the reply's validation and its OpenAPI docs) and the types derived from
 * it: the roads by type, and the traffic control the scene runs.
 */
import type { WireType } from './derive.js';
import { num, str } from './frame.js';

const mapRoadSchema = {
  type: 'object',
  required: ['points', 'index'],
  properties: {
    points: { type: 'array', items: num, description: 'flat [x0, y0, x1, y1, …], map metres (1 cm steps); a polyline (lanes in driving direction) or a polygon ring' },
    index: { type: 'integer', description: 'position in the map file\'s road list' },
    element: { type: 'integer', description: 'Waymax map_element_id, when the map gives one' },
    colour: { enum: ['white', 'yellow'], description: 'road lines' },
    pattern: { enum: ['solid', 'broken', 'double', 'double_broken', 'passing'], description: 'road lines' },
    median: { type: 'boolean', description: 'road edges: a median rather than a kerb or barrier' },
    lane_id: { type: 'string', description: 'lanes: the lane-graph id' },
    speed_limit: { type: 'number', description: 'lanes: m/s' },
  },
} as const;

const roadList = { type: 'array', items: mapRoadSchema } as const;

const flatPoints = (description: string) => ({ type: 'array', items: num, description }) as const;
const idList = (description: string) => ({ type: 'array', items: str, description }) as const;

const mapTrafficControlSchema = {
  type: 'object',
  description: 'the traffic control the scene runs: junctions derived from the lanes with their control, signal groups (the ids of the frames\' signals), and the map\'s signal heads, stop lines and signs; coordinates in 1 cm steps',
  required: ['junctions', 'groups', 'heads', 'stop_lines', 'signs'],
  properties: {
    junctions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'control', 'polygon'],
        properties: {
          id: str,
          control: { enum: ['signal', 'all_way_stop', 'stop', 'yield', 'priority'] },
          polygon: flatPoints('outline, flat [x0, y0, x1, y1, …], a convex ring'),
        },
      },
    },
    groups: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'junction', 'stop_line', 'heads', 'left'],
        properties: {
          id: { ...str, description: 'e.g. J1.A, J3.B.left: the id of its state in npc_states.signals' },
          junction: str,
          stop_line: flatPoints('where its vehicles stop, flat [x0, y0, x1, y1, …] across its lanes'),
          heads: idList('ids of the signal heads that show it'),
          left: { type: 'boolean', description: 'the protected-left group of an approach with left-arrow heads' },
        },
      },
    },
    heads: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'x', 'y', 'kind', 'head', 'left_arrow', 'groups'],
        properties: {
          id: str, x: num, y: num,
          kind: { enum: ['vehicle', 'bus', 'pedestrian', 'bicycle', 'lane_control', 'warning', 'other'] },
          head: { ...str, description: 'the head\'s design, e.g. vehicle_horizontal_3_colour' },
          left_arrow: { type: 'boolean' },
          groups: idList('the signal groups it shows (none: a pedestrian head, or one bound to no junction)'),
        },
      },
    },
    stop_lines: {
      type: 'array',
      items: {
        type: 'object', required: ['id', 'points'],
        properties: {
          id: str, points: flatPoints('the line, flat [x0, y0, x1, y1, …]'),
          derived: { type: 'boolean', description: 'the map paints no line here: where the vehicles of a signal group (id: the group) or of a stop or yield sign\'s approach (id: junction.approach letter) stop, where their lanes enter the junction' },
        },
      },
    },
    signs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'x', 'y', 'kind'],
        properties: { id: str, x: num, y: num, kind: { enum: ['stop', 'yield', 'speed_limit', 'min_speed', 'slow'] } },
      },
    },
    crosswalks: {
      type: 'array',
      description: 'the map\'s crosswalks (empty for maps made before they were carried); a walk signal group in npc_states.signals names the ones it governs',
      items: {
        type: 'object',
        required: ['id', 'polygon', 'axis', 'lanes'],
        properties: {
          id: str,
          polygon: flatPoints('outline, flat [x0, y0, x1, y1, …], a ring without its closing repeat'),
          axis: flatPoints('the walking axis kerb to kerb, flat [ax, ay, bx, by]'),
          lanes: idList('ids of the lanes whose centre lines cross it'),
        },
      },
    },
  },
} as const;

export const mapReplySchema = {
  type: 'object',
  required: ['name', 'origin', 'convergence_deg', 'bounds', 'roads', 'counts', 'traffic_control'],
  properties: {
    name: str,
    origin: { type: 'object', properties: { lat: num, lon: num } },
    convergence_deg: { ...num, description: 'meridian convergence at the origin: grid north is this many degrees clockwise of true north' },
    bounds: { type: 'object', properties: { min_x: num, min_y: num, max_x: num, max_y: num } },
    roads: {
      type: 'object',
      properties: { lane: roadList, road_line: roadList, road_edge: roadList, crosswalk: roadList, speed_bump: roadList, stop_sign: roadList, driveway: roadList },
    },
    counts: { type: 'object', additionalProperties: { type: 'integer' }, description: 'roads per type, points, and roads of other types skipped' },
    traffic_control: mapTrafficControlSchema,
  },
} as const;

export type MapReply = WireType<typeof mapReplySchema>;
export type MapRoad = NonNullable<MapReply['roads']['lane']>[number];
export type MapRoadType = keyof MapReply['roads'];
export type MapTrafficControl = MapReply['traffic_control'];
export type MapCrosswalk = NonNullable<MapTrafficControl['crosswalks']>[number];
export type JunctionControl = MapTrafficControl['junctions'][number]['control'];
export type LineColour = NonNullable<MapRoad['colour']>;
export type LinePattern = NonNullable<MapRoad['pattern']>;
