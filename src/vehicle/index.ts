/**
 * The ground floor's vehicle vocabulary: what every layer says about a moving object, in the map frame and SI
 * units (x/y metres east/north of the map origin, yaw radians counter-clockwise from east, speed m/s). An NPC, an
 * ego, a scripted actor, a person and a wire entry each extend these instead of re-declaring x/y/yaw, so that a
 * field means one thing wherever it appears.
 */

/** Where an object is and which way it points (its centre, map frame). */
export interface Pose {
  x: number;
  y: number;
  /** radians counter-clockwise from east */
  yaw: number;
}

/** The object's outline: a rectangle about its centre, length along the heading [m]. */
export interface Box {
  length: number;
  width: number;
}

/** A pose with the speed along the heading [m/s]. */
export interface KinematicState extends Pose {
  speed: number;
}

/** A moving object as collision checks, observations and frames need it: kinematic state and outline. */
export interface VehicleState extends KinematicState, Box {}

/**
 * What a moving object is. Vehicles are what the policy drives; pedestrians and cyclists are people. Every moving
 * object in a frame carries its kind so that a car's perception stack can classify it (Autoware: PEDESTRIAN, BICYCLE).
 */
export const OBJECT_KINDS = ['vehicle', 'pedestrian', 'cyclist'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

/**
 * A stop line a vehicle must not pass now: a movement closed by its signal (red or yellow), from its entry (where
 * a front stops) to its exit, map frame. It applies to a vehicle whose path runs through both.
 */
export interface StopLine {
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
  readonly exitX: number;
  readonly exitY: number;
  /** entry → exit along the movement [m] */
  readonly length: number;
  /** yellow: stop only when that can be done comfortably */
  readonly yellow: boolean;
}
