/**
 * Prometheus metrics at GET /metrics (prom-client), for every hosted scene. Labels are bounded: `scene`
 * (a configured name), `kind` (a fixed set), `state` (live/stale) — never an NPC, ego or client id.
 *
 *   vils_step_duration_seconds{scene}            histogram: the whole scene step (egos, policy, dynamics, population)
 *   vils_inference_duration_seconds{scene}       histogram: the policy's batched inference in that step
 *   vils_policy_steps_total{scene}               policy steps run
 *   vils_loop_overruns_total{scene}              runner ticks that started late (the loop fell behind)
 *   vils_loop_skipped_ticks_total{scene}         ticks given up after a stall
 *   vils_step_errors_total{scene}
 *   vils_frames_published_total{scene}           frames handed to the sinks (rate() = publish rate)
 *   vils_publish_hz{scene}                       configured frame rate
 *   vils_clients{scene,kind="stream"|"foxglove"}
 *   vils_dropped_frames_total{scene,kind}        frames a slow client missed
 *   vils_ws_messages_total{scene}, vils_ws_errors_total{scene}
 *   vils_egos{scene,state="live"|"stale"}
 *   vils_npcs{scene}
 *   vils_npc_steps_total{scene}, vils_npc_contact_steps_total{scene}, vils_npc_offroad_steps_total{scene}
 *   vils_ego_contact_steps_total{scene}, vils_npc_trips_total{scene,kind="started"|"reached_goal"|"abandoned"}
 *   vils_npc_line_violations_total{scene,kind="red_light"|"stop_sign"}  from geometry, rules on or off
 *   vils_npc_line_crossings_total{scene}        stop lines NPCs crossed
 *   vils_npc_shield_interventions_total{scene}   when the scene reports them (a safety shield)
 *   vils_recording_bytes_total{scene}, vils_recording_dropped_total{scene}, vils_recording_pending_bytes{scene}
 *   vils_sim_time_seconds{scene}
 *   vils_access_refused_total{kind}              refusals and dropped input by reason, every scene together (the status's
 *                                                access.refused: rate_limited_ws, over_server_budget, server_full, closed_1008, …)
 *   vils_ws_input_admitted_total{kind="reserve"|"budget"}  stream messages let through to be parsed, every scene together
 *   plus prom-client's process and Node.js metrics (CPU, memory, handles, GC, event-loop lag …)
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SceneHost } from '../host.js';
import type { FoxgloveChannels } from './foxglove.js';
import type { SceneRecorder } from '../recording.js';

const STEP_BUCKETS = [0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.5];

/** A counter fed from a running total kept elsewhere (a total that restarts, e.g. on a scene reset, restarts the delta). */
class Totals {
  private readonly last = new Map<string, number>();
  private readonly ids = new Map<object, number>();
  inc(c: Counter<string>, labels: Record<string, string>, total: number): void {
    if (!Number.isFinite(total)) return;
    let id = this.ids.get(c);
    if (id === undefined) this.ids.set(c, (id = this.ids.size));
    const key = `${JSON.stringify(labels)}#${id}`;
    const prev = this.last.get(key) ?? 0;
    const delta = total >= prev ? total - prev : total;
    this.last.set(key, total);
    c.inc(labels, delta);
  }
}

export interface VilsMetrics {
  register: Registry;
  /** reads every host's running totals into the metrics (call before each scrape) */
  update(): void;
  /** the text exposition of everything */
  scrape(): Promise<string>;
}

export function createMetrics(hosts: readonly SceneHost[]): VilsMetrics {
  const register = new Registry();
  collectDefaultMetrics({ register });
  const totals = new Totals();
  const scene = ['scene'] as const;

  const stepHist = new Histogram({ name: 'vils_step_duration_seconds', help: 'Duration of one scene step (egos, observations, inference, dynamics, population)', labelNames: scene, buckets: STEP_BUCKETS, registers: [register] });
  const inferHist = new Histogram({ name: 'vils_inference_duration_seconds', help: "Duration of the policy's batched inference in one step", labelNames: scene, buckets: STEP_BUCKETS, registers: [register] });
  const counter = (name: string, help: string, labelNames: readonly string[] = scene) => new Counter({ name, help, labelNames, registers: [register] });
  const gauge = (name: string, help: string, labelNames: readonly string[] = scene) => new Gauge({ name, help, labelNames, registers: [register] });

  const steps = counter('vils_policy_steps_total', 'Policy steps run');
  const overruns = counter('vils_loop_overruns_total', 'Runner ticks that started late');
  const skipped = counter('vils_loop_skipped_ticks_total', 'Runner ticks given up after a stall');
  const stepErrors = counter('vils_step_errors_total', 'Simulation steps that failed');
  const frames = counter('vils_frames_published_total', 'Frames handed to the sinks (clients, recorder, Foxglove)');
  const publishHz = gauge('vils_publish_hz', 'Configured frames per second');
  const clients = gauge('vils_clients', 'Connected clients', ['scene', 'kind']);
  const dropped = counter('vils_dropped_frames_total', 'Frames a slow client missed', ['scene', 'kind']);
  const wsMessages = counter('vils_ws_messages_total', 'Messages received on the stream');
  const wsErrors = counter('vils_ws_errors_total', 'Stream messages answered with an error');
  const egos = gauge('vils_egos', 'Egos tracked', ['scene', 'state']);
  const npcs = gauge('vils_npcs', 'NPCs on the map');
  const npcSteps = counter('vils_npc_steps_total', 'NPC-steps (NPCs × policy steps)');
  const contacts = counter('vils_npc_contact_steps_total', 'NPC-steps in contact with another vehicle');
  const offroad = counter('vils_npc_offroad_steps_total', 'NPC-steps touching a road edge');
  const egoContacts = counter('vils_ego_contact_steps_total', 'Ego-steps in contact with an NPC');
  const lineRuns = counter('vils_npc_line_violations_total', 'NPCs that crossed a stop line on red or past a stop sign without a full stop (from geometry, rules on or off)', ['scene', 'kind']);
  const lineCrossings = counter('vils_npc_line_crossings_total', 'Stop lines NPCs crossed');
  const people = gauge('vils_people', 'Ambient people the scene keeps at crosswalks (0 on a map without crosswalks)');
  const peopleEvents = counter('vils_people_events_total', 'People at crosswalks, from geometry: crossings started, started on dont_walk, struck by an NPC, struck by an ego, npc_entered_occupied (an NPC front onto a crosswalk with a person in its path)', ['scene', 'kind']);
  const trips = counter('vils_npc_trips_total', 'NPC trips by outcome', ['scene', 'kind']);
  const shield = counter('vils_npc_shield_interventions_total', 'Safety-shield interventions on NPC actions (NPC-steps)', ['scene', 'kind']);
  const recBytes = counter('vils_recording_bytes_total', 'Bytes written to the recording (compressed)');
  const recDropped = counter('vils_recording_dropped_total', 'Messages the recorder dropped (disk too slow)');
  const recPending = gauge('vils_recording_pending_bytes', 'Bytes queued for the recording thread');
  const simTime = gauge('vils_sim_time_seconds', 'Simulation time of the scene');

  for (const host of hosts) {
    const labels = { scene: host.name };
    let lastStep = 0;
    steps.inc(labels, 0);
    recBytes.inc(labels, 0);
    recDropped.inc(labels, 0);    // steps and their timings, from the frames (a batch of steps shows the last one's timings)
    host.runner.addSink({
      publish(frame) {
        const s = frame.snapshot;
        if (s.step !== lastStep) {
          steps.inc(labels, s.step > lastStep ? s.step - lastStep : s.step);
          if (s.timings && s.step > 0) {
            stepHist.observe(labels, s.timings.scene_ms / 1000);
            inferHist.observe(labels, s.timings.inference_ms / 1000);
          }
        }
        lastStep = s.step;
      },
    });
  }

  const refused = counter('vils_access_refused_total', 'Requests, connections and stream messages refused or dropped, by reason (every scene together)', ['kind']);
  const admitted = counter('vils_ws_input_admitted_total', "Stream messages let through to be parsed, from the connection's reserve or the server-wide budget (every scene together)", ['kind']);

  const scenes = gauge('vils_scenes', 'Scenes hosted', []);
  // everything else is read when scraped
  const update = () => {
    scenes.set(hosts.length);
    // the access control is the server's, not a scene's: every host carries the same one
    const a = (hosts[0]?.attachments.get('access') as { status(): { refused?: Record<string, number>; ws_input?: Record<string, number> } } | undefined)?.status();
    for (const [kind, n] of Object.entries(a?.refused ?? {})) totals.inc(refused, { kind }, n);
    if (a?.ws_input) {
      totals.inc(admitted, { kind: 'reserve' }, a.ws_input.from_reserve);
      totals.inc(admitted, { kind: 'budget' }, a.ws_input.from_budget);
    }
      for (const host of hosts) {
        const l = { scene: host.name };
        const st = host.runner.stats;
        const q = host.scene.quality;
        totals.inc(overruns, l, st.overruns);
        totals.inc(skipped, l, st.skippedTicks);
        totals.inc(stepErrors, l, st.stepErrors);
        totals.inc(frames, l, st.frames);
        publishHz.set(l, host.serving.publish_hz);
        clients.set({ ...l, kind: 'stream' }, host.clients.size);
        totals.inc(dropped, { ...l, kind: 'stream' }, host.clients.dropped());
        const fox = host.attachments.get('foxglove') as FoxgloveChannels | undefined;
        clients.set({ ...l, kind: 'foxglove' }, fox?.stats.clients ?? 0);
        totals.inc(dropped, { ...l, kind: 'foxglove' }, fox?.stats.dropped ?? 0);
        totals.inc(wsMessages, l, host.counters.messages);
        totals.inc(wsErrors, l, host.counters.errors);
        const list = host.scene.snapshot().egos;
        const stale = list.filter((e) => e.stale).length;
        egos.set({ ...l, state: 'live' }, list.length - stale);
        egos.set({ ...l, state: 'stale' }, stale);
        npcs.set(l, host.scene.npcCount);
        totals.inc(npcSteps, l, q.npcSteps);
        const v = host.scene.control.metrics.violations();
        totals.inc(lineRuns, { ...l, kind: 'red_light' }, v.red_light_violations);
        totals.inc(lineRuns, { ...l, kind: 'stop_sign' }, v.stop_sign_violations);
        totals.inc(lineCrossings, l, v.line_crossings);
        const pc = host.scene.people.summary();
        people.set(l, pc.pedestrians);
        totals.inc(peopleEvents, { ...l, kind: 'crossing' }, pc.people_crossings);
        totals.inc(peopleEvents, { ...l, kind: 'started_on_dont_walk' }, pc.people_started_on_dont_walk);
        totals.inc(peopleEvents, { ...l, kind: 'struck_by_npc' }, pc.people_struck);
        totals.inc(peopleEvents, { ...l, kind: 'struck_by_ego' }, pc.people_struck_by_ego);
        totals.inc(peopleEvents, { ...l, kind: 'npc_entered_occupied' }, pc.npc_crosswalk_entries_with_person);
        totals.inc(contacts, l, q.vehicleContactSteps);
        totals.inc(offroad, l, q.roadEdgeSteps);
        totals.inc(egoContacts, l, host.scene.egoCollisionSteps);
        totals.inc(trips, { ...l, kind: 'started' }, q.trips.started);
        totals.inc(trips, { ...l, kind: 'reached_goal' }, q.trips.reachedGoal);
        totals.inc(trips, { ...l, kind: 'abandoned' }, q.trips.abandoned);
        for (const [kind, n] of shieldCounts(q)) totals.inc(shield, { ...l, kind }, n);
        const rec = host.attachments.get('recording') as SceneRecorder | undefined;
        if (rec) {
          totals.inc(recBytes, l, rec.writer.stats.bytesWritten);
          totals.inc(recDropped, l, rec.writer.stats.dropped);
          recPending.set(l, rec.writer.stats.pendingBytes);
        }
        simTime.set(l, host.scene.time);
      }
  };
  return { register, update, scrape: async () => { update(); return register.metrics(); } };
}

/**
 * Shield interventions by kind, when the scene's quality summary has them (shield_<kind>_share of the
 * NPC-steps, e.g. shield_override_share, shield_emergency_share); none without a shield.
 */
function shieldCounts(q: { summary(): object }): Array<[string, number]> {
  const summary = q.summary() as Record<string, unknown>;
  const npcSteps = summary.npc_steps;
  if (typeof npcSteps !== 'number') return [];
  const out: Array<[string, number]> = [];
  for (const [k, v] of Object.entries(summary)) {
    const m = /^shield_([a-z]+)_share$/.exec(k);
    if (m && typeof v === 'number') out.push([m[1], Math.round(v * npcSteps)]);
  }
  return out;
}

export async function metricsPlugin(app: FastifyInstance, opts: { hosts: readonly SceneHost[] }): Promise<void> {
  const metrics = createMetrics(opts.hosts);
  app.get('/metrics', { schema: { tags: ['status'], description: 'Prometheus metrics (text exposition format)' } }, async (_req, reply) => {
    reply.header('content-type', metrics.register.contentType);
    return metrics.scrape();
  });
}
