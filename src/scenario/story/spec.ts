/**
 * A scripted test case (`story:` in a scenario file): scripted actors, events started by triggers, their
 * actions, pass/fail criteria and the end condition. The shape follows ASAM OpenSCENARIO 1.x's storyboard,
 * flattened for test engineers: one story is one Act → one ManeuverGroup → one Maneuver whose Events are
 * `events` (so an event's priority acts on every other event of the story), a trigger is a Trigger (`any` = its
 * ConditionGroups, `all` = one ConditionGroup), `end` is the Storyboard's StopTrigger. Units are in the key
 * names (`_s`, `_m`, `_kmh`, `_mps2`); here everything is SI (m, s, m/s, m/s², rad). Parsed in parse.ts.
 */
import type { ObjectKind } from '../../vehicle/index.js';
import type { VruTarget } from './targets.js';

/** How a value moves from start to target (OpenSCENARIO DynamicsShape): f(0) = 0, f(1) = 1. */
export type Shape = 'linear' | 'cubic' | 'sinusoidal' | 'step';
export const SHAPES: readonly Shape[] = ['linear', 'cubic', 'sinusoidal', 'step'];

/** A place on the map: a point, or a distance along a lane of the map's lane graph. */
export type PointSpec = { kind: 'xy'; x: number; y: number } | { kind: 'lane'; lane: string; s: number };

/** Where the vehicle under test must stop before: a place, or another vehicle (its nearest end). */
export type StopPoint = PointSpec | { kind: 'vehicle'; id: string };

/**
 * An impact point across the vehicle under test's front (Euro NCAP's "25 %", "50 %", "75 %"): `share` of `of`'s
 * width from its near side (the right, in right-hand traffic) or its far side (the left). The vehicle is taken to
 * drive on the lane's centre line (the driving line): the point is that far across the lane from it.
 */
export interface ImpactSpec {
  of: string;
  /** 0..1 */
  share: number;
  side: 'near' | 'far';
}

/** Where an actor starts. */
export type ActorStart =
  /**
   * on a lane, s metres from its start, offset metres left of its centre (OpenSCENARIO LanePosition); with
   * `impact`, the offset is the impact point's (a person walking along the lane ahead: CPLA, CBLA)
   */
  | { kind: 'lane'; lane: string; s: number; offset: number; speed: number; impact?: ImpactSpec }
  /**
   * across a lane (a person crossing the road: CPNA, CPFA, CPNC, CBNA, CBFA): a straight path at right angles to
   * the lane at s, through the impact point; the person starts `distance` metres from it on the `impact.side` side
   * (near: from the right, walking left; far: from the left, walking right) and stops `beyond` metres past it
   */
  | { kind: 'cross'; lane: string; s: number; distance: number; beyond: number; impact: ImpactSpec; speed: number }
  /** at a point, snapped onto the nearest lane within 3 m running along yaw (any direction when yaw is null) */
  | { kind: 'xy'; x: number; y: number; yaw: number | null; offset: number; speed: number }
  /**
   * relative to a vehicle (OpenSCENARIO RelativeLanePosition): `gap` metres from its front bumper to the
   * actor's rear bumper along its lanes (negative: from its rear bumper back to the actor's front bumper), on
   * its lane, the lane left or right of it, or a named lane
   */
  | { kind: 'relative'; of: string; gap: number; lane: 'same' | 'left' | 'right' | { id: string }; offset: number; speed: number };

export interface ActorSpec {
  id: string;
  /** what it is (a vehicle unless the case says otherwise): people have the sizes of their target (targets.ts) */
  kind: ObjectKind;
  /** the Euro NCAP target a person is (null: a vehicle) */
  target: VruTarget | null;
  start: ActorStart;
  length: number;
  width: number;
  /** who moves it at the start: the story's script, or the NPC policy (the host's) */
  controller: 'script' | 'policy';
  key: string;
}

/** A trigger condition. `key` is where it is in the YAML, for messages. */
export type Condition = (
  /** simulation time ≥ t (SimulationTimeCondition) */
  | { kind: 'at'; t: number }
  /** story time (since the story was placed) ≥ t */
  | { kind: 'after'; t: number }
  /** the vehicle's centre within radius of the point (ReachPositionCondition / DistanceCondition) */
  | { kind: 'reach'; of: string; point: PointSpec; radius: number }
  /**
   * a proving ground's start line: true in the step the vehicle's front bumper crosses the line across its lane
   * at `point` (perpendicular to the lane there), from its place at the previous step to this one, while its
   * speed is within speed ± tolerance [m/s] (ReachPositionCondition + SpeedCondition in one ConditionGroup)
   */
  | { kind: 'start_line'; of: string; point: PointSpec & { kind: 'lane' }; speed: number; tolerance: number }
  /** the vehicle has travelled m metres since the story started (TraveledDistanceCondition) */
  | { kind: 'traveled'; of: string; m: number }
  /** the vehicle is at least m metres along the lane sequence `route` (its first lane's start = 0) */
  | { kind: 'route_s'; of: string; route: string[]; m: number }
  /** distance between two vehicles (RelativeDistanceCondition): box gap, centre distance, or bumper gap along from's lane */
  | { kind: 'distance'; from: string; to: string; rule: 'below' | 'above'; value: number; measure: 'gap' | 'centres' | 'lane' }
  /** time headway, bumper gap along from's lane / from's speed (TimeHeadwayCondition, freespace) */
  | { kind: 'headway'; from: string; to: string; rule: 'below' | 'above'; value: number }
  /** time to collision from → to along from's lane (TimeToCollisionCondition, longitudinal, freespace) */
  | { kind: 'ttc'; from: string; to: string; value: number }
  /** speed (SpeedCondition) */
  | { kind: 'speed'; of: string; rule: 'below' | 'above'; value: number }
  /** standing (speed < 0.05 m/s) for at least forS seconds (StandStillCondition) */
  | { kind: 'stopped'; of: string; forS: number }
  /** the vehicle's box overlaps another's (`with`, or any) (CollisionCondition) */
  | { kind: 'collision'; of: string; with: string | null }
  /** an event started / completed, plus seconds (StoryboardElementStateCondition startTransition / completeState, delay) */
  | { kind: 'event'; event: string; state: 'started' | 'done'; plus: number }
  | { kind: 'all'; of: Condition[] }
  | { kind: 'any'; of: Condition[] }
) & { key: string };

/** What an action does. Speeds in m/s, rates in m/s² (magnitudes), times in s. */
export type ActionSpec = (
  /** SpeedAction: to `target`, at `rate` (dimension rate; the mean rate for cubic and sinusoidal) or over `duration` (dimension time); step: at once */
  | { kind: 'speed'; actor: string; target: number; rate: number | null; duration: number | null; shape: Shape }
  /** LaneChangeAction: to the lane left/right of the actor's (RelativeTargetLane ±1) or a named lane (AbsoluteTargetLane), over `duration` */
  | { kind: 'lane_change'; actor: string; to: 'left' | 'right' | { id: string }; duration: number; shape: Shape; offset: number }
  /** AssignRouteAction: at forks the actor takes these lanes, in order */
  | { kind: 'follow_route'; actor: string; lanes: string[] }
  /** LongitudinalDistanceAction (timeGap, continuous): keep `gap` seconds ahead of or behind `to` */
  | { kind: 'keep_time_gap'; actor: string; to: string; gap: number; position: 'ahead' | 'behind'; maxAccel: number; maxDecel: number }
  /** SpeedAction to 0 at `decel` */
  | { kind: 'stop'; actor: string; decel: number }
  /** ActivateControllerAction: the NPC policy drives the actor from now on */
  | { kind: 'hand_to_policy'; actor: string }
  /** the script drives the actor again, from where the policy left it */
  | { kind: 'take_from_policy'; actor: string }
  /** TrafficSignalControllerAction / TrafficSignalStateAction: a command the host applies */
  | { kind: 'set_signal'; junction: string; phase: number | null; states: Record<string, string> | null; holdS: number | null }
) & { key: string };

export type Priority = 'parallel' | 'override' | 'skip';

export type AfterEnd = 'continue' | 'stop' | 'leave';
export const AFTER_END: readonly AfterEnd[] = ['continue', 'stop', 'leave'];
/** the default of story.remove_beyond_m [m] */
export const REMOVE_BEYOND_M = 150;

/** The limits of a served attempt's data-quality gates (story.quality; src/scenario/attempt-quality.ts). */
export interface QualityLimits {
  /** the longest gap between two of the car's fixes (their measured times) [s] */
  maxFixGapS: number;
  /** the longest wall-clock gap between two frames to the car (a server stall) [s] */
  maxFrameGapS: number;
  /** the furthest a scripted actor may be from where its script put it [m] */
  maxActorErrorM: number;
}

export const DEFAULT_QUALITY_LIMITS: Readonly<QualityLimits> = { maxFixGapS: 0.3, maxFrameGapS: 0.3, maxActorErrorM: 0.5 };

export interface EventSpec {
  id: string;
  /** null: starts as soon as the story starts (an Event without a StartTrigger) */
  trigger: Condition | null;
  actions: ActionSpec[];
  /**
   * Event priority, over all the story's events: parallel runs beside the others; override stops every other
   * running event first; skip does not start while another is running (it waits in standby)
   */
  priority: Priority;
  /** maximumExecutionCount */
  repeat: number;
  key: string;
}

/** A pass/fail criterion, judged over the run (`ego` is the vehicle under test). */
export type CriterionSpec = (
  | { kind: 'no_collision'; ego: string; with: string | null }
  | { kind: 'min_ttc'; ego: string; to: string | null; limit: number }
  | { kind: 'min_distance'; ego: string; to: string | null; limit: number }
  | { kind: 'stopped_before'; ego: string; point: StopPoint; margin: number }
  | { kind: 'peak_decel'; ego: string; limit: number }
  | { kind: 'reach'; ego: string; point: PointSpec; radius: number; within: number }
) & { name: string; key: string };

export interface StorySpec {
  /**
   * the start gate (the Act's StartTrigger): an armed attempt places its actors, and its story time begins, when
   * this holds of the vehicles already there (the car at the start line); null: at once
   */
  start?: Condition | null;
  actors: ActorSpec[];
  events: EventSpec[];
  criteria: CriterionSpec[];
  /** the Storyboard's StopTrigger; null: the host ends the attempt (its duration) */
  end: Condition | null;
  /** an attempt none of whose events has started this long after the story started is "not started" */
  startTimeout: number | null;
  /**
   * what the scripted actors do once the attempt has ended, the scene running on (served live): continue their
   * script as it was, stop (brake to a standstill in lane), or leave (drive on along the road at the lane's speed)
   */
  afterEnd?: AfterEnd;
  /** after the end an actor leaves the scene only beyond this distance from the vehicle under test [m] (or at a reset or the next arm) */
  removeBeyond?: number;
  /** the data-quality gates' limits for a served attempt with a real car (default DEFAULT_QUALITY_LIMITS) */
  quality?: QualityLimits;
  /** the file the story came from, for messages */
  where: string;
}
