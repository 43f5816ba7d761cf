/**
 * Ids of the moving objects that are not the policy's NPCs: ambient people in the live scene (NPC ids are small,
 * story actors start at 1,000,000). What an object is (ObjectKind) is the ground floor's: src/vehicle.
 */

/** Ids of ambient people in the live scene. */
export const PERSON_ID_BASE = 2_000_000;
