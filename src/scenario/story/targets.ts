/**
 * The people a test case can put in the ego's way, at the sizes of the Euro NCAP test targets, so that a contact
 * with a person is judged on a body of real size (a 0.5 m box, not a 4.5 m car). Sources: Euro NCAP AEB/LSS VRU
 * test protocol v4.x (cdn.euroncap.com, "euro_ncap_aeb_lss_vru_test_protocol_v451"), as summarised in the
 * project's spec/test-cases.md: EPTa adult pedestrian target about 1.8 m tall and 0.5 m wide, EPTc child about
 * 1.15 m tall, EBTa bicyclist with bicycle about 1.9 m long. The protocol text itself was not in the reference
 * stores searched (the search tool's pages/docs/code corpora); the figures the sources do not give are marked
 * "assumed" with how they were chosen. `length` is along the way the target moves, `width` across it.
 */
import type { ObjectKind } from '../../vehicle/index.js';

export type VruTarget = 'EPTa' | 'EPTc' | 'EBTa';
export const VRU_TARGETS: readonly VruTarget[] = ['EPTa', 'EPTc', 'EBTa'];

export interface TargetSize {
  kind: Exclude<ObjectKind, 'vehicle'>;
  /** along its motion [m] */
  length: number;
  /** across its motion [m] */
  width: number;
  /** standing height [m] (for the record and 3-D viewers; contact is judged in plan view) */
  height: number;
  /** where each figure comes from */
  source: string;
}

export const TARGET_SIZES: Readonly<Record<VruTarget, TargetSize>> = {
  // 0.5 m wide and 1.8 m tall (protocol); its depth is not in the sources found: the box is 0.5 m both ways
  // (a square footprint errs on the side of contact)
  EPTa: { kind: 'pedestrian', length: 0.5, width: 0.5, height: 1.8, source: 'Euro NCAP AEB VRU protocol v4.x EPTa: 1.8 m tall, 0.5 m wide; depth assumed = width' },
  // 1.15 m tall (protocol); its width assumed: the adult's 0.5 m scaled by the height ratio 1.15 / 1.8 (0.32 m)
  EPTc: { kind: 'pedestrian', length: 0.32, width: 0.32, height: 1.15, source: 'Euro NCAP AEB VRU protocol v4.x EPTc: 1.15 m tall; width and depth assumed = EPTa 0.5 m × 1.15 / 1.8' },
  // 1.9 m long with its bicycle (protocol); its width assumed 0.6 m (a bicycle's handlebar, wider than the rider's
  // 0.5 m shoulders), its height 1.8 m (the adult rider's stature: assumed)
  EBTa: { kind: 'cyclist', length: 1.9, width: 0.6, height: 1.8, source: 'Euro NCAP AEB VRU protocol v4.x EBTa: 1.9 m long; width (0.6 m handlebar) and height (1.8 m) assumed' },
};

/** the target a person of this kind is when the case names none */
export const DEFAULT_TARGET: Readonly<Record<Exclude<ObjectKind, 'vehicle'>, VruTarget>> = { pedestrian: 'EPTa', cyclist: 'EBTa' };

/**
 * The fastest a person of this kind may be scripted to move [m/s]: above it the number is a typo (a pedestrian at
 * 50 km/h), refused with its key. A running adult stays below 20 km/h; a bicyclist on a city road below 50 km/h.
 */
export const MAX_PERSON_SPEED_MPS: Readonly<Record<Exclude<ObjectKind, 'vehicle'>, number>> = { pedestrian: 20 / 3.6, cyclist: 50 / 3.6 };
