/**
 * What the signals' loop detectors would see, read off where the vehicles are (vehicle-places.ts) for an actuated
 * plan (actuated.ts). Apart from the rules' decisions because it serves the controller, not the NPCs: an ego
 * calls its signal as an NPC does.
 */
import { AgentKind, type World } from '../../traffic/world.js';
import type { SignalDetection } from '../junction-kit/handoff.js';
import type { MovementIndex } from '../junction-kit/movement-index.js';
import { CALL_M, CALL_S, DETECT_NEAR_M, QUEUED_MPS } from './rule-params.js';
import type { VehiclePlaces } from './vehicle-places.js';

/**
 * The signals' detectors: per group, a call from every vehicle (NPC or ego) approaching one of its movements within
 * CALL_S at its speed (or CALL_M), the time the next moving one reaches its line, and whether one stands in a queue
 * close to it. An ego may take any movement of its approach: it calls every group there.
 */
export function detectVehicles(world: World, places: VehiclePlaces, index: MovementIndex, detection: SignalDetection): void {
  detection.clear();
  for (let s = 0; s < world.count; s++) {
    if (!world.present[s]) continue;
    // the next junction, and the one after it when it is a signal close behind (its queue reaches back through the first)
    detectAt(world, index, detection, s, places.apMg[s], places.apD[s]);
    detectAt(world, index, detection, s, places.ap2Mg[s], places.ap2D[s]);
  }
}

function detectAt(world: World, index: MovementIndex, detection: SignalDetection, s: number, mg: number, dCentre: number): void {
  if (mg < 0) return;
  const { j, m } = index.refs[mg];
  const cj = index.layout.junctions[j];
  if (cj.control !== 'signal') return;
  const d = Math.max(0, dCentre - 0.5 * world.length[s]);
  const v = world.speed(s);
  if (world.kind[s] === AgentKind.Controlled) detectGroup(detection, cj.groupOfMovement[m], d, v);
  else for (const mi of cj.junction.approaches[cj.movements[m].approach].movements) detectGroup(detection, cj.groupOfMovement[mi], d, v);
}

function detectGroup(det: SignalDetection, g: number, d: number, v: number): void {
  if (g < 0) return;
  if (d <= Math.max(CALL_M, v * CALL_S)) det.call[g] = 1;
  if (v >= QUEUED_MPS) {
    const arrive = d <= DETECT_NEAR_M ? 0 : d / v;
    if (arrive < det.arrive[g]) det.arrive[g] = arrive;
  } else if (d <= DETECT_NEAR_M) det.queued[g] = 1;
}
