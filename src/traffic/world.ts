/**
 * The NPC world as a struct of arrays: one slot per agent, in creation order. Slots hold GPUDrive agents
 * (policy-controlled, log-replay experts, static), and injected external agents (a real or simulated ego)
 * that others observe and collide with but that the engine never moves. State is float32, as in the sim.
 */
export const AgentKind = {
  Controlled: 0,
  Expert: 1,
  Static: 2,
  External: 3,
} as const;
export type AgentKindId = (typeof AgentKind)[keyof typeof AgentKind];

/** GPUDrive's kMaxAgentCount: agents per world, controlled or not. */
export const MAX_SCENE_AGENTS = 64;
/** Logged timesteps per scene and steps per episode (consts::episodeLen). */
export const EPISODE_STEPS = 91;
/** Collision boxes are 70 % of the logged size (consts::vehicleLengthScale). */
export const COLLISION_SCALE = 0.7;

export class World {
  readonly capacity: number;
  readonly logSteps: number;
  /** slots in use are [0, count); a removed slot has present = 0 */
  count = 0;
  /** environment steps taken since reset (GPUDrive: 91 − stepsRemaining) */
  stepIndex = 0;

  readonly x: Float32Array;
  readonly y: Float32Array;
  readonly yaw: Float32Array;
  readonly vx: Float32Array;
  readonly vy: Float32Array;
  /** logged (unscaled) length and width, m */
  readonly length: Float32Array;
  readonly width: Float32Array;
  /** collision box scale on length/width (0.7 for GPUDrive agents) */
  readonly collisionScale: Float32Array;
  readonly goalX: Float32Array;
  readonly goalY: Float32Array;
  readonly kind: Uint8Array;
  /** 1 while the agent is in the world (0 once teleported away after its goal, or removed) */
  readonly present: Uint8Array;
  readonly done: Uint8Array;
  readonly reachedGoal: Uint8Array;
  /** flags of the latest collision pass */
  readonly collided: Uint8Array;
  readonly hitVehicle: Uint8Array;
  readonly hitRoad: Uint8Array;
  /** caller-facing id (Waymo track id, NPC id, ego id) */
  readonly id: Int32Array;

  /** logged trajectories (slot-major, logSteps per slot), used by expert replay and collision validity */
  readonly logX: Float32Array;
  readonly logY: Float32Array;
  readonly logYaw: Float32Array;
  readonly logVx: Float32Array;
  readonly logVy: Float32Array;
  readonly logValid: Uint8Array;
  /** 1 when the slot has a log (scene agents); live NPCs have none */
  readonly hasLog: Uint8Array;

  constructor(capacity: number, logSteps = EPISODE_STEPS) {
    this.capacity = capacity;
    this.logSteps = logSteps;
    const f32 = () => new Float32Array(capacity);
    const u8 = () => new Uint8Array(capacity);
    this.x = f32(); this.y = f32(); this.yaw = f32(); this.vx = f32(); this.vy = f32();
    this.length = f32(); this.width = f32(); this.collisionScale = f32();
    this.goalX = f32(); this.goalY = f32();
    this.kind = u8(); this.present = u8(); this.done = u8(); this.reachedGoal = u8();
    this.collided = u8(); this.hitVehicle = u8(); this.hitRoad = u8(); this.hasLog = u8();
    this.id = new Int32Array(capacity);
    const n = capacity * logSteps;
    this.logX = new Float32Array(n); this.logY = new Float32Array(n); this.logYaw = new Float32Array(n);
    this.logVx = new Float32Array(n); this.logVy = new Float32Array(n); this.logValid = new Uint8Array(n);
  }

  speed(i: number): number {
    return Math.fround(Math.sqrt(this.vx[i] * this.vx[i] + this.vy[i] * this.vy[i]));
  }

  /** Claims a slot (a free one if any, else a new one at the end) and resets its fields. */
  allocate(kind: AgentKindId): number {
    let slot = -1;
    for (let i = 0; i < this.count; i++) {
      if (!this.present[i]) {
        slot = i;
        break;
      }
    }
    if (slot < 0) {
      if (this.count >= this.capacity) throw new RangeError(`world is full (${this.capacity} agents)`);
      slot = this.count++;
    }
    this.kind[slot] = kind;
    this.present[slot] = 1;
    this.done[slot] = 0;
    this.reachedGoal[slot] = 0;
    this.collided[slot] = 0;
    this.hitVehicle[slot] = 0;
    this.hitRoad[slot] = 0;
    this.hasLog[slot] = 0;
    this.collisionScale[slot] = COLLISION_SCALE;
    this.x[slot] = 0; this.y[slot] = 0; this.yaw[slot] = 0; this.vx[slot] = 0; this.vy[slot] = 0;
    this.goalX[slot] = 0; this.goalY[slot] = 0; this.id[slot] = slot;
    return slot;
  }

  /** Takes an agent out of the world (its slot may be reused). */
  remove(slot: number): void {
    this.present[slot] = 0;
    this.done[slot] = 1;
  }

  /** Number of present agents of a kind. */
  countPresent(kind: AgentKindId): number {
    let n = 0;
    for (let i = 0; i < this.count; i++) if (this.present[i] && this.kind[i] === kind) n++;
    return n;
  }
}
