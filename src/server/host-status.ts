/** What GET /api/status shows of a hosted scene: run state, time, egos, NPCs, timings, the loop, quality, attachments. */
import type { GeoFrame } from '../geo/frame.js';
import type { LoadedMap } from '../map/scene-json.js';
import type { PolicySession } from '../policy/session.js';
import type { LiveScene } from '../scene/index.js';
import type { SceneRunner } from '../session/runner.js';
import type { SceneTime } from '../session/scene-time.js';
import type { SessionAttachment } from '../session/served.js';
import type { ClientRegistry } from './clients.js';
import type { EgoClocks } from './ego-clocks.js';
import type { FrameEncoder } from './frame-encoder.js';
import type { ServingConfig } from './settings.js';
import { egoEntry } from './wire.js';

/** What the status reads of a hosted scene (a SceneHost: host.ts). */
export interface HostedScene {
  readonly name: string;
  readonly scene: LiveScene;
  readonly map: LoadedMap;
  readonly geo: GeoFrame;
  readonly policy: PolicySession;
  readonly runner: SceneRunner;
  readonly time: SceneTime;
  readonly clients: ClientRegistry;
  readonly frames: FrameEncoder;
  readonly egoClocks: EgoClocks;
  readonly serving: ServingConfig;
  readonly counters: { readonly messages: number; readonly errors: number };
  readonly attachments: ReadonlyMap<string, SessionAttachment>;
}

export function sceneStatus(host: HostedScene): Record<string, unknown> {
  const scene = host.scene;
  const frames = host.frames;
  return {
    scene: host.name,
    state: host.runner.state,
    step: scene.steps,
    sim_time_s: Math.round(scene.time * 1000) / 1000,
    publish_hz: host.serving.publish_hz,
    map: host.map.label,
    origin: host.geo.origin,
    convergence_deg: host.geo.originConvergenceDeg,
    policy: host.policy.metadata.source_file ?? host.policy.modelPath,
    // the policy on its own thread (the shield's prediction done while it infers; restarts, the last failure), or
    // null: in the event loop's
    inference_thread: host.policy.threadStatus,
    // each ego as the frames show it, and a stamped car's clock as the server knows it (refusals, probes, jumps)
    egos: scene.snapshot().egos.map((e) => {
      const clock = host.egoClocks.stats(e.egoId);
      return clock ? { ...egoEntry(e), clock } : egoEntry(e);
    }),
    npcs: scene.npcCount,
    clients: host.clients.size,
    timings: scene.timings ? roundTimings(scene.timings) : null,
    loop: host.runner.stats,
    dropped_frames: host.clients.dropped(),
    encode_ms: frames.encodeMs.summary(),
    broadcast_ms: frames.broadcastMs.summary(),
    inference_ms: frames.inferenceMs.summary(),
    step_ms: frames.stepMs.summary(),
    ws_messages: host.counters.messages,
    ws_errors: host.counters.errors,
    ego_collision_steps: scene.egoCollisionSteps,
    quality: scene.quality.summary(),
    junctions: scene.control.metrics.summary(),
    // ambient people at crosswalks: how many, their crossings and the figures (struck, NPCs onto an occupied crosswalk, starts on don't-walk)
    people: scene.people.summary(),
    time: host.time.status(),
    rss_mb: Math.round(process.memoryUsage().rss / 1e5) / 10,
    ...Object.fromEntries([...host.attachments].map(([k, a]) => [k, a.status()])),
  };
}

function roundTimings(t: NonNullable<LiveScene['timings']>) {
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return {
    obs_ms: r(t.obs_ms), inference_ms: r(t.inference_ms), shield_ms: r(t.shield_ms), predict_ms: r(t.predict_ms), dynamics_ms: r(t.dynamics_ms),
    engine_ms: r(t.total_ms), scene_ms: r(t.scene_ms), npcs: t.npcs,
  };
}
