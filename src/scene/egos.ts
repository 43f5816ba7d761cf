/**
 * The egos of a scene: real cars fed by GNSS and simulated ones, as injected vehicles the NPCs observe and
 * collide with but never move. Each report is a pose in the map frame stamped with the simulation time it
 * arrived at; at a policy step an ego is moved along its heading at its speed to the step time. Life cycle:
 * live → stale after `ego_timeout_s` without a report (NPCs stop seeing it) → forgotten after `ego_forget_s`
 * (its id and world slot are freed). Reset and removal forget at once.
 */
import type { TrafficEngine } from '../traffic/engine.js';
import type { SceneConfig } from './config.js';
import { InputError } from './errors.js';
import type { SceneEventListener } from './events.js';

export interface EgoReport {
  egoId: string;
  x: number;
  y: number;
  /** rad, counter-clockwise from map east */
  yaw: number;
  /** m/s along the heading */
  speed: number;
  length?: number;
  width?: number;
  /** the sender's own timestamp, echoed back */
  clientTimestamp?: number | null;
}

export interface EgoState {
  egoId: string;
  x: number;
  y: number;
  yaw: number;
  speed: number;
  length: number;
  width: number;
  stale: boolean;
  collided: boolean;
  /** simulation time of the latest report */
  receivedAt: number;
  clientTimestamp: number | null;
}

interface Ego extends EgoState {
  /** pose of the latest report (EgoState x/y are the pose at the latest step) */
  reportX: number;
  reportY: number;
}

export class EgoRegistry {
  private readonly egos = new Map<string, Ego>();
  /** contacts between an ego and an NPC, counted per ego-step */
  collisionSteps = 0;

  constructor(private readonly config: SceneConfig, private readonly emit: SceneEventListener) {}

  get size(): number {
    return this.egos.size;
  }

  has(id: string): boolean {
    return this.egos.has(id);
  }

  /** Takes a report that arrived at simulation time `t`. Refuses a new id when max_egos egos are tracked. */
  update(r: EgoReport, t: number): void {
    const prev = this.egos.get(r.egoId);
    if (!prev && this.egos.size >= this.config.max_egos) {
      throw new InputError(`this scene already tracks ${this.config.max_egos} egos (max_egos); reuse an ego_id, or remove one (DELETE /api/egos/:id) or wait ${this.config.ego_forget_s} s until a silent one is forgotten`);
    }
    const ego: Ego = {
      egoId: r.egoId, x: prev?.x ?? r.x, y: prev?.y ?? r.y, yaw: r.yaw, speed: r.speed,
      length: r.length ?? prev?.length ?? this.config.ego_length,
      width: r.width ?? prev?.width ?? this.config.ego_width,
      stale: prev?.stale ?? false, collided: prev?.collided ?? false,
      receivedAt: t, clientTimestamp: r.clientTimestamp ?? null, reportX: r.x, reportY: r.y,
    };
    this.egos.set(r.egoId, ego);
    if (!prev) this.emit({ type: 'ego_connected', egoId: r.egoId, t });
  }

  /** Forgets one ego at once. */
  remove(id: string, engine: TrafficEngine, t: number, reason: 'reset' | 'removed' = 'removed'): boolean {
    if (!this.egos.delete(id)) return false;
    engine.removeExternal(id);
    this.emit({ type: 'ego_forgotten', egoId: id, t, reason });
    return true;
  }

  clear(engine: TrafficEngine, t: number): void {
    for (const id of [...this.egos.keys()]) this.remove(id, engine, t, 'reset');
    this.collisionSteps = 0;
  }

  /** The ego's report moved along its heading to time t. */
  private extrapolate(e: Ego, t: number): void {
    const dt = t - e.receivedAt;
    e.x = e.reportX + e.speed * Math.cos(e.yaw) * dt;
    e.y = e.reportY + e.speed * Math.sin(e.yaw) * dt;
  }

  /**
   * Before the policy step at time t: live egos go into the engine at their pose at t; silent ones turn
   * stale (out of the engine) and, later, are forgotten.
   */
  place(engine: TrafficEngine, t: number): void {
    for (const e of this.egos.values()) {
      const age = t - e.receivedAt;
      if (age > this.config.ego_forget_s) {
        this.egos.delete(e.egoId);
        engine.removeExternal(e.egoId);
        this.emit({ type: 'ego_forgotten', egoId: e.egoId, t, reason: 'timeout' });
        continue;
      }
      if (age > this.config.ego_timeout_s) {
        if (!e.stale) {
          e.stale = true;
          e.collided = false;
          engine.removeExternal(e.egoId);
          this.emit({ type: 'ego_stale', egoId: e.egoId, t, ageS: age });
        }
        continue;
      }
      if (e.stale) {
        e.stale = false;
        this.emit({ type: 'ego_resumed', egoId: e.egoId, t });
      }
      this.extrapolate(e, t);
      engine.setExternal(e.egoId, { x: e.x, y: e.y, yaw: e.yaw, speed: e.speed, length: e.length, width: e.width, collisionScale: 1 });
    }
  }

  /** After the step: which egos an NPC touched (reported once per contact, counted per step). */
  afterStep(engine: TrafficEngine, t: number, touching: (egoId: string) => number[]): void {
    for (const e of this.egos.values()) {
      const hit = !e.stale && engine.externalCollided(e.egoId);
      if (hit) {
        this.collisionSteps++;
        if (!e.collided) this.emit({ type: 'ego_collided', egoId: e.egoId, t, npcIds: touching(e.egoId) });
      }
      e.collided = hit;
    }
  }

  /** Egos as of time t (poses moved to t; stale ones where they were last seen). */
  list(t: number): EgoState[] {
    const out: EgoState[] = [];
    for (const e of this.egos.values()) {
      if (!e.stale) this.extrapolate(e, t);
      out.push({
        egoId: e.egoId, x: e.x, y: e.y, yaw: e.yaw, speed: e.speed, length: e.length, width: e.width,
        stale: e.stale, collided: e.collided, receivedAt: e.receivedAt, clientTimestamp: e.clientTimestamp,
      });
    }
    return out;
  }
}
