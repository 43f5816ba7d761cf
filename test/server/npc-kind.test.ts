/**
 * Every moving object says its kind (vehicle, pedestrian, cyclist) in every output the scene's NPC states go to:
 * the JSON npc_states entry (both builders, valid against the published schema), the Foxglove scene (a pedestrian
 * an upright cylinder, a cyclist its box, each in its own colour), and the recorded frame (packed flags), which a
 * replay and a playback give back bit for bit. A scene with people is made here by hand: which helper puts people
 * in the scene is not what these outputs decide.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { FMTC_ORIGIN, GeoFrame } from '../../src/geo/index.js';
import {
  COLORS, KIND_HEIGHT_M, NPC_FLAGS_V2_MASK, base64ToF64, describeNpcFlags, f64ToBase64, firstNpcDifference, frameSnapshot, packNpcs, sceneUpdate,
  unpackNpcs, type FrameRecord,
} from '../../src/record/index.js';
import type { NpcState, SceneSnapshot } from '../../src/scene/index.js';
import { NpcFrameBuilder, buildNpcStatesFrame, npcEntry } from '../../src/server/wire.js';
import { PERSON_ID_BASE } from '../../src/traffic/object-kind.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const geo = new GeoFrame(FMTC_ORIGIN);

const base: NpcState = {
  id: 3, x: 10.25, y: -4.5, yaw: 0.3, vx: 5, vy: 1.5, speed: 5.2, length: 4.6, width: 1.9, goalX: 80, goalY: 20,
  collided: false, offroad: false, auto: true, hold: 'none',
};
/** a policy NPC (no kind: a vehicle), an ambient pedestrian held at a red walk signal, a scripted cyclist, a car that says it is one */
const npcs: NpcState[] = [
  base,
  { ...base, id: PERSON_ID_BASE + 1, x: 3.1, y: 7.7, yaw: 1.57, vx: 0, vy: 0, speed: 0, length: 0.5, width: 0.6, hold: 'red', kind: 'pedestrian', collided: true },
  { ...base, id: 1_000_002, x: -12, y: 2, yaw: -0.5, vx: 3.5, vy: -1.9, speed: 4, length: 1.8, width: 0.6, auto: false, actor: 'bike1', kind: 'cyclist' },
  { ...base, id: 4, kind: 'vehicle', offroad: true },
];
const snap: SceneSnapshot = { time: 12.3456, step: 123, npcs, egos: [], timings: null, signals: [] };

describe('the kind of every moving object', () => {
  it('is in every JSON npc entry (a policy NPC without one: vehicle), the same from both frame builders, valid against the schema', () => {
    const frame = buildNpcStatesFrame(geo, snap, 'running', 1.7e9);
    expect(frame.npcs.map((n) => n.kind)).toEqual(['vehicle', 'pedestrian', 'cyclist', 'vehicle']);
    expect(npcEntry(geo, npcs[1])).toMatchObject({ id: PERSON_ID_BASE + 1, kind: 'pedestrian', hold: 'red', length: 0.5, width: 0.6 });
    expect(npcEntry(geo, npcs[2])).toMatchObject({ kind: 'cyclist', actor: 'bike1' });
    // the reused-entry builder the host encodes with writes the same text, also when a kind changes in place
    const b = new NpcFrameBuilder();
    expect(JSON.stringify(b.build(geo, snap, 'running', 1.7e9))).toBe(JSON.stringify(frame));
    const swapped: SceneSnapshot = { ...snap, npcs: [npcs[2], npcs[0], npcs[1], npcs[3]].map((n, i) => ({ ...n, id: npcs[i].id, x: npcs[i].x, y: npcs[i].y })) };
    expect(JSON.stringify(b.build(geo, swapped, 'running', 1.7e9))).toBe(JSON.stringify(buildNpcStatesFrame(geo, swapped, 'running', 1.7e9)));
    const schema = JSON.parse(readFileSync(join(PROJECT_ROOT, 'docs', 'protocol', 'npc_states.schema.json'), 'utf8')) as object;
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(JSON.parse(JSON.stringify(frame))), JSON.stringify(validate.errors)).toBe(true);
    // a kind the protocol does not have is refused by the schema
    const bad = JSON.parse(JSON.stringify(frame)) as { npcs: Array<{ kind: string }> };
    bad.npcs[1].kind = 'horse';
    expect(validate(bad)).toBe(false);
  });

  it('draws a pedestrian as a column and a cyclist as its box on the Foxglove scene, each in a colour of its own', () => {
    const u = sceneUpdate({ ...snap, npcs: npcs.map((n) => ({ ...n, collided: false, offroad: false })) }, 1.7e9);
    const byId = new Map(u.entities.map((e) => [e.id, e as unknown as { cubes: any[]; cylinders: any[]; metadata: Array<{ key: string; value: string }> }]));
    const kindOf = (id: number) => byId.get(`npc/${id}`)!.metadata.find((m) => m.key === 'kind')?.value;
    expect(npcs.map((n) => kindOf(n.id))).toEqual(['vehicle', 'pedestrian', 'cyclist', 'vehicle']);
    const walker = byId.get(`npc/${PERSON_ID_BASE + 1}`)!;
    expect(walker.cubes).toEqual([]);
    expect(walker.cylinders).toHaveLength(1);
    expect(walker.cylinders[0].size).toEqual({ x: 0.6, y: 0.6, z: KIND_HEIGHT_M.pedestrian });
    expect(walker.cylinders[0].pose.position).toEqual({ x: 3.1, y: 7.7, z: KIND_HEIGHT_M.pedestrian / 2 });
    expect(walker.cylinders[0].color).toEqual(COLORS.pedestrian);
    const bike = byId.get('npc/1000002')!;
    expect(bike.cylinders).toEqual([]);
    expect(bike.cubes[0].size).toEqual({ x: 1.8, y: 0.6, z: KIND_HEIGHT_M.cyclist });
    expect(bike.cubes[0].color).toEqual(COLORS.cyclist);
    const car = byId.get('npc/3')!;
    expect(car.cylinders).toEqual([]);
    expect(car.cubes[0].size).toEqual({ x: 4.6, y: 1.9, z: 1.5 });
    expect(car.cubes[0].color).toEqual(COLORS.npc);
    expect(new Set([COLORS.npc, COLORS.npcRequested, COLORS.pedestrian, COLORS.cyclist].map((c) => JSON.stringify(c))).size).toBe(4);
  });

  it('is recorded with every NPC state and given back bit for bit: the replayed frame, the played-back JSON', () => {
    const packed = packNpcs(npcs);
    const back = unpackNpcs(base64ToF64(f64ToBase64(packed)));
    // a person keeps its kind, a vehicle comes back as the scene makes it (no kind: the entry says vehicle)
    expect(back.map((n) => n.kind)).toEqual([undefined, 'pedestrian', 'cyclist', undefined]);
    expect(firstNpcDifference(packed, packNpcs(back))).toBeNull();
    // the flags column: bits 6–7 the kind, beside the hold (bits 3–5) and collided / off-road / auto
    const flags = packed.subarray(11 * npcs.length);
    expect([...flags]).toEqual([4, 1 | 4 | (1 << 3) | (1 << 6), 2 << 6, 2 | 4]);
    expect(describeNpcFlags(flags[1])).toBe('collided, auto, hold red, pedestrian');
    // a replay whose person turned into a cyclist is told at that NPC's flags; a format 2 recording is compared without kinds
    const other = packNpcs(npcs.map((n) => (n.kind === 'pedestrian' ? { ...n, kind: 'cyclist' as const } : n)));
    expect(firstNpcDifference(packed, other)).toMatchObject({ index: 1, id: PERSON_ID_BASE + 1, field: 'flags' });
    expect(firstNpcDifference(packed, other, NPC_FLAGS_V2_MASK)).toBeNull();
    // playback: the recorded frame's npc_states is the live one, text for text (the actor's story id is not recorded)
    const rec: FrameRecord = { f: 0, calls: 0, t: snap.time, step: snap.step, state: 'running', wall_time: 1.7e9, npcs: f64ToBase64(packed), egos: [], timings: null, v: 3, signals: '' };
    const live = buildNpcStatesFrame(geo, { ...snap, npcs: npcs.map(({ actor: _, ...n }) => n) }, 'running', 1.7e9);
    expect(JSON.stringify(buildNpcStatesFrame(geo, frameSnapshot(rec), 'running', 1.7e9))).toBe(JSON.stringify(live));
  });
});
