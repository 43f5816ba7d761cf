/**
 * Walking speeds of people on crosswalks, drawn per person from field data: Knoblauch, Pietrucha & Nitzburg,
 * "Field Studies of Pedestrian Walking Speed and Start-Up Time", Transportation Research Record 1538 (1996),
 * pp. 27–38 (about 7,000 crossings at signalised and unsignalised crosswalks in four US cities): pedestrians
 * under 65 walked at a mean 1.51 m/s (15th percentile 1.25 m/s), those 65 and older at 1.27 m/s (15th
 * percentile 0.97 m/s). Each group is taken as normal with the spread its 15th percentile implies
 * (σ = (mean − p15) / 1.036), and one person in five is of the older group, which puts the overall mean near
 * 1.46 m/s; draws are kept within 0.6 … 2.2 m/s. (The Korean signal manual times its greens for 1.0 m/s, a
 * design speed slower than most people walk.)
 */
import type { SeededRandom } from '../../util/random.js';

const YOUNG_MEAN = 1.51, YOUNG_P15 = 1.25;
const OLD_MEAN = 1.27, OLD_P15 = 0.97;
const OLD_SHARE = 0.2;
const Z15 = 1.036;
export const MIN_WALK_MPS = 0.6;
export const MAX_WALK_MPS = 2.2;

/** One standard normal draw (Box–Muller, one of the pair). */
function normal(rng: SeededRandom): number {
  const u = Math.max(rng.next(), 1e-12);
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A person's walking speed [m/s]. */
export function drawWalkingSpeed(rng: SeededRandom): number {
  const old = rng.next() < OLD_SHARE;
  const mean = old ? OLD_MEAN : YOUNG_MEAN;
  const sd = (mean - (old ? OLD_P15 : YOUNG_P15)) / Z15;
  return Math.min(MAX_WALK_MPS, Math.max(MIN_WALK_MPS, mean + sd * normal(rng)));
}
