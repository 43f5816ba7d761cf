/**
 * A frame's signal groups as the ROS 2 bridge publishes them (ros2/vils_bridge/vils_bridge/convert.py, which says
 * why each state is the element it is): autoware_perception_msgs/TrafficLightGroupArray, one group per signal group
 * with one element, and the JSON side message (std_msgs/String) with what that type has no field for.
 */
import { stampOf } from './ros2-messages.js';
import type { NpcStatesMessage, SignalFrameEntry } from '../protocol/index.js';

const SIGNAL_CODES: Record<string, string> = { G: 'green', g: 'green_yield', y: 'yellow', r: 'red', o: 'off' };
type Element = [color: string, shape: string, status: string];
const MAIN: Record<string, Element> = {
  green: ['GREEN', 'CIRCLE', 'SOLID_ON'],
  green_yield: ['GREEN', 'CIRCLE', 'SOLID_ON'],
  yellow: ['AMBER', 'CIRCLE', 'SOLID_ON'],
  red: ['RED', 'CIRCLE', 'SOLID_ON'],
  off: ['UNKNOWN', 'CIRCLE', 'SOLID_OFF'],
};
// a left-turn group shows the arrow only for its protected green
const LEFT: Record<string, Element> = { ...MAIN, green: ['GREEN', 'LEFT_ARROW', 'SOLID_ON'] };
const UNKNOWN: Element = ['UNKNOWN', 'UNKNOWN', 'UNKNOWN'];

/** 'J1.A=1001, J1.B=1002' -> the car's lanelet2 traffic light ids by VILS group id (convert.parse_group_ids) */
export function parseGroupIds(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of text.replaceAll(';', ',').split(',')) {
    const part = raw.trim();
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? '' : part.slice(0, eq).trim();
    const value = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (!key) throw new Error(`traffic_light_group_ids: "${part}" is not <group id>=<integer>`);
    if (!/^[+-]?\d+$/.test(value)) throw new Error(`traffic_light_group_ids: "${part}": '${value}' is not an integer`);
    out.set(key, Number(value));
  }
  return out;
}

function records(frame: NpcStatesMessage): SignalFrameEntry[] | null {
  return Array.isArray(frame.signals) ? frame.signals.filter((s) => s !== null && typeof s === 'object') : null;
}

function integer(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && Number.isInteger(v) ? v : null;
}

function groupId(s: SignalFrameEntry, ids: Map<string, number>): number | null {
  if (ids.size > 0) return ids.get(String(s.id)) ?? null;
  return integer(s.numeric_id);
}

function stateOf(s: SignalFrameEntry): string {
  const state = s.state ?? (s.code !== undefined ? SIGNAL_CODES[s.code] ?? s.code : undefined);
  return typeof state === 'string' ? state : JSON.stringify(state);
}

/** TrafficLightGroupArray of a frame (null: the frame has no signals, publish nothing); `c` the element constants */
export function trafficLightGroups(frame: NpcStatesMessage, ids: Map<string, number>, c: Record<string, number>) {
  const recs = records(frame);
  if (recs === null) return null;
  const groups = [];
  for (const s of recs) {
    const id = groupId(s, ids);
    if (id === null) continue;
    const state = stateOf(s);
    const table = s.left ? LEFT : MAIN;
    const known = state in table;
    const [color, shape, status] = known ? table[state] : UNKNOWN;
    groups.push({
      traffic_light_group_id: id,
      elements: [{ color: c[color], shape: c[shape], status: c[status], confidence: known ? 1.0 : 0.0 }],
      predictions: [],
    });
  }
  return { stamp: stampOf(frame.timestamp), traffic_light_groups: groups };
}

/** the JSON of /vils/signals (convert.signals_side_message), or null without signals */
export function signalsJson(frame: NpcStatesMessage, ids: Map<string, number>): string | null {
  const recs = records(frame);
  if (recs === null) return null;
  const signals = recs.map((s) => ({
    id: s.id ?? null, numeric_id: s.numeric_id ?? null, traffic_light_group_id: groupId(s, ids),
    junction: s.junction ?? null, state: stateOf(s), code: s.code ?? null,
    time_to_change_s: typeof s.time_to_change_s === 'number' && Number.isFinite(s.time_to_change_s) ? s.time_to_change_s : null,
    source: s.source ?? null, left: Boolean(s.left), lanes: [...(s.lanes ?? [])],
  }));
  return JSON.stringify({ timestamp: frame.timestamp ?? null, sim_time_s: frame.sim_time_s ?? null, signals });
}
