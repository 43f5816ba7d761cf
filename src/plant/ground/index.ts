export { type GroundProvider, wheelCentres } from './ground.js';
export { FlatGround } from './flat.js';
export { SplitMuGround } from './split-mu.js';
export { InclinedGround } from './inclined.js';
