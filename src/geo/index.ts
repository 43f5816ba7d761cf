/** src/geo — WGS84 ⇄ UTM52N ⇄ local frame, heading ⇄ yaw with meridian convergence. */
export * from './frame.js';
