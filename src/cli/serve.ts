/**
 * `vils serve` (and `npm start`): the VILS server on the built-in demo track, or on a given map; more
 * scenes in the same process with `--scene name=map.json` or a `scenes` list in the config file.
 *   vils serve [--port 8000] [--host 0.0.0.0] [--map <file>] [--config <file.json>] [--model <onnx>] [--scene name=map]...
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createServer, type SceneOptions, type VilsServer } from '../server/app.js';
import type { SessionConfig } from '../server/host.js';
import { checkSettings } from '../scene/settings.js';
import { SESSION_SETTINGS } from '../server/settings.js';
import { DEFAULT_RECORDING, recordingDir, type RecordingSettings } from '../server/recording.js';
import { UsageError, type Command } from './commands.js';
import { loadAccessFile } from '../server/access.js';
import { loadScenario } from '../scenario/config.js';
import { attachSimEgos, type SimEgoSession } from '../session/sim-egos.js';
import { attachStory } from '../session/story-desk.js';
import { ioPlugin } from '../server/io-plugin.js';
import { allowAllWarning } from '../cosim/sources.js';
import type { EgoPriority } from '../session/sim-ego-protocol.js';
import type { SimEgoThread } from '../session/sim-ego-thread.js';
import { applyCpus, chooseCpus, formatCpuList, processCpus, parseCpuSetting, type CpuSetting } from '../server/cpu-affinity.js';
import { TimeSettingsError, parseTimeSettings, type TimeSettings } from '../time/settings.js';
import type { Clock } from '../time/clock.js';
import { stopWithParent } from './stop-with-parent.js';
import { listenFailure, serveStartProblems } from './serve-preflight.js';
import { defaultMapPath } from '../scene/setup.js';
import { SceneRecorder } from '../server/recording.js';

interface ServeFileConfig extends Partial<SessionConfig> {
  origin?: { lat: number; lon: number };
  map?: string;
  model?: string;
  port?: number;
  host?: string;
  scenes?: Array<{ name: string; map?: string; origin?: { lat: number; lon: number }; config?: Partial<SessionConfig> }>;
}

function readConfigFile(path: string): ServeFileConfig {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--config ${path}: ${(err as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new UsageError(`--config ${path}: expected a JSON object`);
  const allowed = new Set([...Object.keys(SESSION_SETTINGS), 'origin', 'map', 'model', 'port', 'host', 'scenes']);
  for (const k of Object.keys(data)) if (!allowed.has(k)) throw new UsageError(`--config ${path}: unknown key "${k}"`);
  // the settings' ranges from the one table, as PUT /api/config enforces them
  const settings = Object.fromEntries(Object.entries(data).filter(([k]) => k in SESSION_SETTINGS));
  const scenes = (data as { scenes?: unknown }).scenes;
  try {
    checkSettings(settings, SESSION_SETTINGS);
    if (Array.isArray(scenes)) {
      scenes.forEach((sc: unknown, i) => {
        const config = (sc as { config?: unknown } | null)?.config;
        if (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config))) throw new Error(`scenes[${i}].config must be an object`);
        if (config) checkSettings(config as Record<string, unknown>, SESSION_SETTINGS, `setting of scenes[${i}].config`);
      });
    }
  } catch (err) {
    throw new UsageError(`--config ${path}: ${(err as Error).message}`);
  }
  return data as ServeFileConfig;
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the VILS server (WebSocket /ws/vils/stream, REST /api, docs /docs)',
  usage: 'vils serve [--port 8000] [--host 0.0.0.0] [--map <file>] [--config <file.json>] [--model <onnx>] [--paused] [--scene <name>=<map.json>]... [--no-record] [--record-dir recordings] [--record-max-file-mb 512] [--record-max-total-mb 8192] [--record-foxglove-hz 10] [--foxglove-port <port>] [--access <file.json>] [--log-level info] [--log-format pretty|json] [--scenario <scenario.yaml>] [--time-mode realtime|afap|lockstep] [--dmax-ms 100] [--time-step-ms 1] [--asset-port <port>] [--story-ego <ego_id>] [--ego-priority fifo|normal|<nice>] [--cpus auto|all|<list>] [--pedestrians 20]',
  async run(argv) {
    const { server, exited } = await startServe(argv);
    // Ctrl-C, SIGTERM, SIGHUP, or the process that started it (npm start) gone: say why, close cleanly, but never
    // hang on a client that does not answer the close handshake (src/cli/stop-with-parent.ts)
    const log = server.app.log;
    stopWithParent({ log: { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m) }, close: () => server.close() });
    // a scenario with `at_end: exit` stops the server at its duration; anything else runs until stopped
    await exited;
    setTimeout(() => process.exit(0), 2000).unref();
    await server.close();
    log.info('stopped');
    process.exit(0);
  },
};

export interface ServeHandle {
  server: VilsServer;
  /** the address listened on (http://host:port) */
  address: string;
  /** --scenario's simulated egos, when given */
  sim: SimEgoSession | null;
  /** resolves when a scenario with `at_end: exit` has reached its duration (never otherwise) */
  exited: Promise<void>;
}

/** What tests change of `vils serve`: the runners' clock (a fast virtual clock runs a scenario in moments). */
export interface ServeOverrides {
  clock?: Clock;
  epochNow?: () => number;
}

/**
 * Everything `vils serve` does up to listening, from its arguments: the server, --scenario's simulated egos and
 * the JSON data port over them, the listen, the ready lines (tests start the server in-process through it).
 * The caller stops it with `server.close()`.
 */
export async function startServe(argv: string[], overrides: ServeOverrides = {}): Promise<ServeHandle> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' }, host: { type: 'string' }, map: { type: 'string' }, config: { type: 'string' },
      model: { type: 'string' }, paused: { type: 'boolean' }, 'log-level': { type: 'string' }, scene: { type: 'string', multiple: true },
      'no-record': { type: 'boolean' }, 'record-dir': { type: 'string' }, 'record-max-file-mb': { type: 'string' },
      'record-max-total-mb': { type: 'string' }, 'record-foxglove-hz': { type: 'string' }, 'foxglove-port': { type: 'string' },
      access: { type: 'string' }, 'log-format': { type: 'string' }, scenario: { type: 'string' },
      'time-mode': { type: 'string' }, 'dmax-ms': { type: 'string' }, 'time-step-ms': { type: 'string' }, 'asset-port': { type: 'string' },
      'story-ego': { type: 'string' }, 'ego-priority': { type: 'string' }, cpus: { type: 'string' }, pedestrians: { type: 'string' },
    },
  });
  const recording = recordingSettings(values);
  const foxglovePort = values['foxglove-port'] === undefined ? undefined : Number(values['foxglove-port']);
  if (foxglovePort !== undefined && !(Number.isInteger(foxglovePort) && foxglovePort >= 0 && foxglovePort <= 65535)) throw new UsageError(`--foxglove-port must be 0..65535, got ${values['foxglove-port']}`);
  const file = values.config ? readConfigFile(values.config) : {};
  const { origin, map, model, port: filePort, host: fileHost, scenes: fileScenes, ...session } = file;
  const scenes: SceneOptions[] = (fileScenes ?? []).map((s) => ({ name: s.name, mapPath: s.map, origin: s.origin, config: s.config }));
  for (const spec of values.scene ?? []) {
    const m = /^([^=]+)=(.+)$/.exec(spec);
    if (!m) throw new UsageError(`--scene ${spec}: expected <name>=<map.json>`);
    scenes.push({ name: m[1], mapPath: m[2] });
  }
  const port = Number(values.port ?? filePort ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0..65535, got ${values.port}`);
  const bind = values.host ?? fileHost ?? '0.0.0.0';
  // --scenario: its road map, NPCs and scene settings, and its simulated egos (src/session/sim-egos.ts)
  const scenario = values.scenario ? await loadScenario(values.scenario) : null;
  if (scenario && !scenario.map.roadMapPath) throw new UsageError(`--scenario ${values.scenario}: its map ${scenario.map.file} has no road_map for the NPCs and the web map`);
  // the port, the maps and the record folder before anything is loaded (and so before a recording is begun)
  const defaultMap = scenario?.map.roadMapPath ?? values.map ?? map;
  const problems = await serveStartProblems({
    listens: [{ host: bind, port, what: '--port' }, ...(foxglovePort ? [{ host: bind, port: foxglovePort, what: '--foxglove-port' }] : [])],
    maps: [
      ...(defaultMap !== undefined ? [{ path: defaultMap, what: scenario ? `--scenario ${values.scenario}` : values.map !== undefined ? '--map' : `--config ${values.config}` }] : [{ path: defaultMapPath(), what: 'the default map' }]),
      ...scenes.map((s) => ({ path: s.mapPath ?? defaultMapPath(), what: `scene ${s.name}` })),
    ],
    recordDir: recording.enabled ? recordingDir(recording) : null,
  });
  if (problems.length > 0) throw new ServeStartError(problems);
  const storyEgo = values['story-ego'];
  if (storyEgo !== undefined && !scenario?.story) throw new UsageError('--story-ego names the real car that plays a test case\'s ego: give a --scenario with a story: (docs/test-cases.md)');
  if (storyEgo !== undefined && !/^[A-Za-z0-9_.:@-]{1,64}$/.test(storyEgo)) throw new UsageError(`--story-ego must be an ego_id (1–64 letters, digits, _ . : @ -), got ${JSON.stringify(storyEgo)}`);
  const egoPriority = parseEgoPriority(values['ego-priority']);
  // --pedestrians N: the scene setting (people at the crosswalks), over the config file's and the scenario's
  const pedestrians = values.pedestrians === undefined ? undefined : Number(values.pedestrians);
  if (pedestrians !== undefined && !(Number.isInteger(pedestrians) && pedestrians >= 0 && pedestrians <= 200)) throw new UsageError(`--pedestrians must be 0..200, got ${values.pedestrians}`);
  let cpuSetting: CpuSetting;
  try {
    cpuSetting = parseCpuSetting(values.cpus);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const time = timeSettings(values, scenario?.resolved.time);
  const logFormat = values['log-format'] ?? (process.stdout.isTTY ? 'pretty' : 'json');
  if (logFormat !== 'pretty' && logFormat !== 'json') throw new UsageError(`--log-format must be pretty or json, got ${logFormat}`);
  // tokens, origins, hosts and limits: --access <file.json> (or VILS_ACCESS_FILE) and VILS_*_TOKENS
  const access = loadAccessFile(values.access ?? process.env.VILS_ACCESS_FILE);
  const t0 = performance.now();
  const server = await createServer({
    mapPath: scenario?.map.roadMapPath ?? values.map ?? map, modelPath: values.model ?? model, origin, config: { ...session, ...scenario?.scene, ...(pedestrians !== undefined ? { pedestrians } : {}) }, scenes,
    autostart: !values.paused, logLevel: values['log-level'] ?? 'info', logFormat, access,
    recording, foxglove: { port: foxglovePort, host: values.host ?? fileHost ?? '0.0.0.0' }, time, signals: scenario?.signals,
    clock: overrides.clock, epochNow: overrides.epochNow,
  });
  let sim: SimEgoSession | null = null;
  let exit: () => void = () => {};
  const exited = new Promise<void>((resolve) => (exit = resolve));
  if (scenario) {
    // (the VDS1 command ports bind where the comms file says, loopback by default — never --host: VDS1 has no authentication)
    // a test case: its story steps with the world; with --story-ego the real car plays the case's first ego (which is then not simulated)
    const served = storyEgo !== undefined ? { ...scenario, egos: scenario.egos.slice(1) } : scenario;
    const story = scenario.story ? attachStory(server.host, scenario, [], { realEgo: storyEgo }) : null;
    if (served.egos.length > 0) {
      // in realtime on the system clock the plants and their UDP I/O run in a thread of their own
      // (src/session/sim-ego-thread.ts); a test case's simulated egos stay in-process (its story reads their plants
      // at each policy step), and VILS_SIM_EGO_THREAD=off keeps them there too (a comparison, a diagnosis)
      const thread = overrides.clock === undefined && !(story && storyEgo === undefined) && process.env.VILS_SIM_EGO_THREAD !== 'off';
      try {
        sim = await attachSimEgos(server.host, served, { log: (msg) => server.app.log.info(msg), logger: server.app.log, onExit: () => exit(), thread, priority: egoPriority });
      } catch (err) {
        // (a command port in use, a thread that could not start): stop what was started, say why
        await abandon(server);
        throw err;
      }
      if (story && storyEgo === undefined) story.useSimEgos(sim.inProcess!.egos);
      // a comms file that takes commands from every address: a banner (and cmd_exposure.warning in /api/status)
      const allowAll = allowAllWarning(scenario.run.comms?.allow ?? [], `${scenario.run.comms?.file ?? 'the comms file'}: allow`);
      if (allowAll) server.app.log.warn(`\n${'!'.repeat(100)}\n${allowAll}\n${'!'.repeat(100)}`);
      await server.app.register(ioPlugin, { ports: sim.ports });
      server.app.log.info(`scenario ${scenario.name}: simulated egos ${sim.specs.map((e) => `${e.id} (${e.level}, ${e.driver.kind})`).join(', ')}${sim.cmdPorts.length ? `; VDS1 CMD on ${sim.cmdPorts.join(', ')}` : ''}; JSON data port /api/io; ` +
        (scenario.duration > 0 ? `duration ${scenario.duration} s, then ${scenario.atEnd} (at_end)` : 'duration 0: until stopped') + (sim.thread ? `; their plants and UDP I/O in a thread of their own (scheduling: ${sim.thread.priority})` : ''));
    } else await server.host.runner.reset(); // the test case joins the conductor (the real car is its only ego)
    if (story) server.app.log.info(`test case ${scenario.name}: ${storyEgo !== undefined ? `the real car ${storyEgo} plays ${scenario.egos[0]?.id}; arm an attempt with POST /api/story/arm {"attempt": <GET /api/story's attempt>} or the web map's test panel` : `the simulated ego ${scenario.egos[0]?.id} under test; an attempt is armed at every reset`}; GET /api/story`);
  }
  // the CPUs the server keeps to, once an egos' thread is there (a refused list stops it, as a bad flag does)
  try {
    keepToCpus(server, cpuSetting, sim?.thread ?? null);
  } catch (err) {
    await abandon(server);
    throw new UsageError((err as Error).message);
  }
  let address: string;
  try {
    address = await server.app.listen({ port, host: bind });
  } catch (err) {
    // (the port taken since it was checked) say why and stop everything started (the loops, the recorder), so the
    // process exits instead of hanging, and leave no recording of a server that never served
    await abandon(server);
    throw new Error(listenFailure(err as NodeJS.ErrnoException, bind, port));
  }
  const h = server.host;
  server.app.log.info(
    `VILS ready in ${((performance.now() - t0) / 1000).toFixed(2)} s on ${address}: web map ${address}/${access.tokens.length ? '?token=<a viewer or operator token>' : ''}, map ${h.map.label}, ` +
      `${h.scene.npcCount} NPCs, ${h.runner.state}; WebSocket ${address.replace(/^http/, 'ws')}/ws/vils/stream, docs ${address}/docs` +
      server.hosts.slice(1).map((o) => `; scene ${o.name} (${o.map.label}): web map ${address}/scenes/${o.name}/`).join(''),
  );
  server.app.log.info(`Foxglove: ${address.replace(/^http/, 'ws')}/foxglove${server.foxglovePort !== undefined ? ` and ws://<host>:${server.foxglovePort}/` : ''}; metrics ${address}/metrics; ` +
    (recording.enabled ? `recording into ${recordingDir(recording)} (segments of ${recording.maxFileMb} MB, folder capped at ${recording.maxTotalMb} MB)` : 'not recording (--no-record)'));
  return { server, address, sim, exited };
}

/**
 * --ego-priority for the simulated egos' thread: `fifo` (the real-time scheduler, the default: a 1 kHz plant on a
 * busy 2-core machine needs it to keep its period, src/session/sim-ego-worker.ts), `normal` (as it is) or a
 * niceness −20..19.
 */
function parseEgoPriority(v: string | undefined): EgoPriority {
  if (v === undefined || v === 'fifo') return 'fifo';
  if (v === 'normal') return null;
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < -20 || n > 19) throw new UsageError(`--ego-priority must be fifo, normal or a niceness -20..19, got ${v}`);
  return n;
}

/**
 * --cpus (src/server/cpu-affinity.ts): keeps every thread of the server on the chosen CPUs, says so, shows it in
 * GET /api/status `cpus` and gives the process its CPUs back when the server closes; `auto` pins only a server
 * whose egos' thread runs on the real-time scheduler. Throws for a list naming a CPU the process may not use.
 */
function keepToCpus(server: VilsServer, setting: CpuSetting, thread: SimEgoThread | null): void {
  const log = server.app.log;
  const allowed = processCpus();
  const shown = { setting: setting === 'auto' || setting === 'all' ? setting : formatCpuList(setting), cpus: 'all', reason: '' };
  const attach = (restore: (() => void) | null) =>
    server.host.attachments.set('cpus', { status: () => ({ ...shown }), close: async () => restore?.() });
  if (!allowed) {
    shown.reason = 'this system does not say which CPUs a process may use (no /proc)';
    if (setting !== 'auto' && setting !== 'all') log.warn(`--cpus: ${shown.reason}: the server runs on all of them`);
    attach(null);
    return;
  }
  const choice = chooseCpus(setting, allowed, thread !== null && thread.priority.startsWith('fifo'));
  shown.reason = choice.reason;
  if (!choice.cpus) {
    if (setting === 'all' || thread) log.info(`the server runs on ${choice.reason}`);
    attach(null);
    return;
  }
  const failed = applyCpus(choice.cpus);
  if (failed) {
    shown.reason = `could not keep to ${choice.reason}: ${failed}`;
    log.warn(`the server ${shown.reason}; it runs on all its CPUs`);
    attach(null);
    return;
  }
  shown.cpus = formatCpuList(choice.cpus);
  log.info(`the server keeps its threads on ${choice.reason}`);
  attach(() => void applyCpus(allowed));
}

export { listenFailure };

/** A start refused before anything was loaded: every problem, one a line (exit 1: not a misused flag). */
export class ServeStartError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.length === 1 ? `${problems[0]}` : `cannot start:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** A server that loaded but cannot serve: its recordings removed (they hold no session), then everything closed. */
async function abandon(server: VilsServer): Promise<void> {
  for (const h of server.hosts) {
    const rec = h.attachments.get('recording');
    if (rec instanceof SceneRecorder) await rec.discard().catch(() => {});
  }
  await server.close().catch(() => {});
}

/**
 * The default scene's time conductor: the scenario's `time:` block (a served scenario is realtime unless the
 * block names another mode), then the flags on top.
 */
function timeSettings(values: Record<string, string | boolean | string[] | undefined>, block: unknown): TimeSettings {
  const raw: Record<string, unknown> = block !== null && typeof block === 'object' && !Array.isArray(block) ? { ...(block as Record<string, unknown>) } : {};
  const num = (flag: string) => {
    const v = values[flag];
    if (v === undefined) return undefined;
    const n = Number(v);
    if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${flag} must be a number, got ${String(v)}`);
    return n;
  };
  if (values['time-mode'] !== undefined) raw.mode = values['time-mode'];
  const dmax = num('dmax-ms');
  const step = num('time-step-ms');
  const port = num('asset-port');
  if (dmax !== undefined) raw.dmax_ms = dmax;
  if (step !== undefined) raw.step_ms = step;
  if (port !== undefined) raw.asset_port = port;
  try {
    return parseTimeSettings(raw, 'realtime');
  } catch (err) {
    if (err instanceof TimeSettingsError) throw new UsageError(err.message);
    throw err;
  }
}

/** The recording settings from the command line: on by default into recordings/. */
function recordingSettings(values: Record<string, string | boolean | string[] | undefined>): RecordingSettings {
  const num = (flag: string, fallback: number, min: number) => {
    const v = values[flag];
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!(Number.isFinite(n) && n >= min)) throw new UsageError(`--${flag} must be a number ≥ ${min}, got ${String(v)}`);
    return n;
  };
  return {
    ...DEFAULT_RECORDING,
    enabled: !values['no-record'],
    dir: (values['record-dir'] as string | undefined) ?? DEFAULT_RECORDING.dir,
    maxFileMb: num('record-max-file-mb', DEFAULT_RECORDING.maxFileMb, 1),
    maxTotalMb: num('record-max-total-mb', DEFAULT_RECORDING.maxTotalMb, 0),
    foxgloveHz: num('record-foxglove-hz', DEFAULT_RECORDING.foxgloveHz, 0),
  };
}
