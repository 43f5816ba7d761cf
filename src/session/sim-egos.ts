/**
 * A scenario's simulated egos in a live, real-time scene (`vils serve --scenario`): each ego's plant is an asset
 * of the scene's time conductor (scene-time.ts, with the world asset of src/scenario/assets.ts: the scenario's
 * own exchange rule), stepped through the scene inputs so every ego report is logged in order and recordings
 * replay; in realtime an ego that cannot keep up within a tick's budget is left behind and reported, never
 * waited for. They appear in npc_states.egos and on the web map like real
 * cars, and are driven by their autopilot or from outside — VDS1 CMD through the scenario's comms file, or the
 * JSON data port at /api/io — with the fail-safe after 0.1 s of silence. Real cars may join the same scene.
 *
 * The server drives these egos itself, so their reports are marked `simulated`: a plant left behind at start-up
 * (a cold process, a busy machine) is reported lagging by the time conductor, never made stale by the scene.
 *
 * In realtime mode (the default of `vils serve`) with `thread`, the plants and their UDP I/O run in a worker
 * thread of their own instead (sim-ego-thread.ts): they tick on their own schedule, so an NPC step, the frames
 * and the viewers' sockets on the main thread cannot delay a STATE datagram, and their reports keep coming while
 * the main thread steps NPCs. The reports are scene inputs all the same (logged: a recording replays exactly);
 * the autopilot gets every policy step's traffic a message later than in-process. afap and lockstep, a virtual
 * clock (tests) and a test case's own egos keep the in-process, deterministic stepping.
 *
 * The scenario's `duration` (simulated seconds; 0: until stopped) ends the served scene as `at_end` says: the
 * runner stops at exactly the duration and pauses (`pause`, the default: the frames say `paused`, /api/status
 * `sim_egos.end` says why, the log "scenario duration 300 s reached: paused"; starting it again runs on past
 * it), resets to 0 and runs again (`loop`), or the server stops (`exit`, through `onExit`).
 */
import type { VehiclePorts } from '../cosim/ports.js';
import { EgoCommsLink } from '../scenario/comms-link.js';
import type { AtEnd, EgoSpec, Scenario } from '../scenario/config.js';
import { SimEgo } from '../scenario/sim-ego.js';
import { placeEgos } from '../scenario/world.js';
import type { EgoReport } from '../scene/egos.js';
import type { Logger } from './log.js';
import type { ServedSession, SessionAttachment } from './served.js';
import { MAX_TICK_HZ } from './runner.js';
import type { EgoPriority } from './sim-ego-protocol.js';
import { SimEgoThread } from './sim-ego-thread.js';

export interface SimEgoSession {
  readonly specs: readonly EgoSpec[];
  /** the VDS1 command ports (the comms file's listen ports) */
  readonly cmdPorts: readonly number[];
  /** the JSON data port over the egos (/api/io) */
  readonly ports: VehiclePorts;
  /** the plants stepped in-process, null when they run in their thread */
  readonly inProcess: { readonly egos: SimEgo[]; readonly link: EgoCommsLink } | null;
  /** the plants' own thread, null in-process */
  readonly thread: SimEgoThread | null;
}

export interface SimEgoOptions {
  bindAddress?: string;
  /** where the end of the scenario is told (default: nowhere) */
  log?: (msg: string) => void;
  /** where a failed thread is told */
  logger?: Pick<Logger, 'error'>;
  /** at_end: exit — stop the server (called once, at the duration) */
  onExit?: () => void;
  /** realtime mode: the plants and their UDP I/O in a thread of their own (the runner must pace on the system clock) */
  thread?: boolean;
  /** that thread's scheduling (`vils serve --ego-priority`) */
  priority?: EgoPriority;
}

/** What happened at the scenario's end (GET /api/status `sim_egos.end`), null before it. */
export interface ScenarioEnd {
  /** simulation time it ended at [s] (the duration) */
  at_s: number;
  action: AtEnd;
  message: string;
  /** epoch seconds */
  wall_time: number;
}

/** The log line (and status message) at the end of a served scenario. */
export function endMessage(duration: number, action: AtEnd): string {
  const d = Number(duration.toFixed(3));
  return `scenario duration ${d} s reached: ${action === 'pause' ? 'paused' : action === 'loop' ? 'looping (reset to 0 s, running again)' : 'exiting'}`;
}

export async function attachSimEgos(host: ServedSession, scenario: Scenario, opts: SimEgoOptions = {}): Promise<SimEgoSession> {
  // in a thread, these stand at their starts for the placement after each reset (the thread ticks its own)
  const egos = scenario.egos.map((s) => new SimEgo(s, { ground: scenario.map.ground, line: scenario.map.line, cmdTimeoutS: 0.1, record: false }));
  const inputs = host.inputs;
  // simulated: the scene never makes them stale for the age of a report (a plant that lags at start-up)
  const report = (r: EgoReport, t: number) => void inputs.updateEgo({ ...r, simulated: true }, t).catch(() => undefined);
  const place = () => placeEgos(host.scene, egos, (id) => void inputs.removeNpc(id).catch(() => undefined), (r) => report(r, 0));
  let link: EgoCommsLink | null = null;
  let thread: SimEgoThread | null = null;
  if (opts.thread === true && host.time.settings.mode === 'realtime') {
    const t = await SimEgoThread.start({
      scenario, egoIds: scenario.egos.map((e) => e.id), bindAddress: opts.bindAddress, report, priority: opts.priority,
      // the runner's clock is the system clock (performance.now() in seconds): the thread counts on the same
      timeline: () => ({ running: host.runner.state === 'running', simS: host.runner.simNow(), wallS: performance.now() / 1000 }),
      onFailed: (message) => {
        opts.logger?.error({ scene: host.name }, `the simulated egos' thread failed: ${message}; their STATE and commands have stopped and they leave the scene (restart the server to bring them back)`);
        for (const e of egos) void inputs.removeEgo(e.id).catch(() => undefined);
      },
    });
    thread = t;
    host.time.attachEgos([], report, () => {
      t.reset();
      if (t.alive) place();
    }, (ts, snap, stops) => t.observe(ts, snap, stops));
  } else {
    link = await EgoCommsLink.open(egos, scenario.run.mode === 'rt_comms' ? scenario.run.comms : null, { now: () => host.runner.simNow(), bindAddress: opts.bindAddress, running: () => host.runner.state === 'running' });
    host.time.attachEgos(egos, report, () => {
      for (const e of egos) e.reset();
      place();
    });
  }
  // the scenario's duration ends the scene (0: until stopped)
  let ended: ScenarioEnd | null = null;
  let loops = 0;
  if (scenario.duration > 0) {
    host.runner.setEnd(scenario.duration, (t) => {
      const action = scenario.atEnd;
      ended = { at_s: t, action, message: endMessage(scenario.duration, action), wall_time: host.runner.epochNow() };
      opts.log?.(ended.message);
      if (action === 'loop') {
        loops++;
        // after the tick that ended it (a reset waits for the tick under way)
        void host.runner.reset().then(() => host.runner.start(), () => undefined);
      } else if (action === 'exit') opts.onExit?.();
    });
  }
  const attachment: SessionAttachment = {
    status: () => ({
      scenario: scenario.name,
      duration_s: scenario.duration,
      at_end: scenario.duration > 0 ? scenario.atEnd : null,
      // the scenario's end, while the scene stands at it (a reset or a loop starts it over)
      end: ended !== null && (host.runner.ended || scenario.atEnd !== 'pause') ? ended : null,
      loops,
      mode: scenario.run.mode,
      comms: scenario.run.comms?.name ?? null,
      cmd_ports: link?.cmdPorts ?? thread?.cmdPorts ?? [],
      // where they listen and whom they take commands from (loopback, and the comms file's allow)
      cmd_exposure: link?.exposure() ?? thread?.stats?.exposure ?? null,
      egos: egos.map((e) => {
        const row = thread?.stats?.egos.find((r) => r.egoId === e.id);
        const live = row ? { t: row.t, failsafe: row.failsafe, cmds: row.cmds } : thread ? { t: 0, failsafe: false, cmds: 0 } : { t: e.time, failsafe: e.vehicle.watchdog.active, cmds: e.vehicle.cmdsAccepted };
        return { ego_id: e.id, vehicle_id: e.vehicle.id, level: e.spec.level, driver: e.spec.driver.kind, dt: e.spec.dt, ...live };
      }),
      // the plants' own thread: its late and skipped ticks, how late the main thread takes their reports
      thread: thread?.status() ?? null,
    }),
    health: () => thread?.health() ?? null,
    close: async () => {
      host.runner.setEnd(null);
      host.runner.setMinTickHz(null);
      host.time.detachEgos();
      await link?.close();
      await thread?.close();
    },
  };
  host.attachments.set('sim_egos', attachment);
  // egos that talk to the outside (STATE over the comms file, commands from a control stack or /api/io) tick
  // on the runner at their own rate, so STATE leaves paced and a command acts within one plant step, not in a
  // burst per published frame
  // (in their thread they tick on their own schedule: the runner keeps to publish_hz)
  const outside = egos.filter((e) => scenario.run.mode === 'rt_comms' || e.spec.driver.kind === 'external');
  if (link && outside.length > 0) host.runner.setMinTickHz(Math.min(MAX_TICK_HZ, Math.max(...outside.map((e) => 1 / e.spec.dt))));
  await host.runner.reset();
  const specs = scenario.egos;
  if (thread) return { specs, cmdPorts: thread.cmdPorts, ports: thread, inProcess: null, thread };
  return { specs, cmdPorts: link!.cmdPorts, ports: link!.dataPort, inProcess: { egos, link: link! }, thread: null };
}
