/**
 * What a moving object in the scene is. Vehicles are what the policy drives; pedestrians and cyclists are people,
 * driven by their own simple walkers (live scene) or by a test case's script (story actors). Every moving object in
 * a frame carries its kind so that a car's perception stack can classify it (Autoware: PEDESTRIAN, BICYCLE).
 */
import type { ObjectKind } from '../vehicle/index.js';

export const OBJECT_KINDS: readonly ObjectKind[] = ['vehicle', 'pedestrian', 'cyclist'];

/** Ids of ambient people in the live scene (NPC ids are small, story actors start at 1,000,000). */
export const PERSON_ID_BASE = 2_000_000;
