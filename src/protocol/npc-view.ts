/**
 * GET /api/npcs entries as a JSON schema (the reply's validation and its OpenAPI docs) and their type derived
 * from it: a frame entry's fields plus the NPC's goal, whether the scene spawned it and why it is held back.
 */
import type { WireType } from './derive.js';
import { num } from './frame.js';

export const npcViewSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, x: num, y: num, lat: num, lon: num, yaw: num, heading: num, speed: num, vx: num, vy: num, length: num, width: num,
    goal_x: num, goal_y: num, collided: { type: 'boolean' }, offroad: { type: 'boolean' }, auto: { type: 'boolean' },
    hold: { enum: ['none', 'red', 'yellow', 'stop_sign', 'give_way', 'box', 'queue', 'crosswalk'], description: 'why it is held back: a traffic rule (red, yellow, stop_sign, give_way, box: no room past the junction, crosswalk: a person on or about to step onto a crosswalk in its path), a vehicle ahead that waits (queue), or none' },
    actor: { type: 'string', description: "a test case's scripted actor: its story id (absent for the policy's NPCs; its goal is where it is)" },
  },
} as const;

export type NpcView = WireType<typeof npcViewSchema>;
/** Why an NPC is held back, or none. */
export type NpcHold = NonNullable<NpcView['hold']>;
