/**
 * `vils realtime`: a drop-in for VDSim's `vdsim_realtime`, in both of its forms —
 *
 *   vils realtime <vehicle.yaml> <tire.yaml> [--level=L2] [--cmd-port=7001] [--state-ip=127.0.0.1]
 *                 [--state-port=7002] [--rate=200] [--vx0=0] [--cmd-timeout=0.1]          (seed 000 §18.5, spec §2.6)
 *   vils realtime --scene=<world or scene YAML> [--cmd-port= --state-ip= --state-port= --rate= --time-scale=
 *                 --cmd-timeout= --lugre|--no-lugre|--lugre=on|off]                        (spec §2.1)
 *
 * Flags are written `--name=value` as VDSim parses them; `--name value` works too. Extensions: --protocol=1..5
 * (VDS1 version, default 5), --failsafe=straight|hold-steer and --failsafe-brake=, --http-port= (the JSON data
 * port, with OpenAPI at /docs), --io-timeout=, --catalog=<dir> (blueprints), --t-end=, --bind= (default
 * 127.0.0.1; beyond loopback --allow=<addresses or a.b.c.d/n blocks> names whose datagrams are taken),
 * --auto-subscribers=N (legacy subscribers discovered from CMD sources, default 4, 0: off), --spin-us= (the
 * clock's final busy-wait), --priority=<nice> (e.g. −10 on a loaded machine), --quiet, --json; the time conductor:
 * --time-mode=realtime|afap|lockstep, --dmax-ms=, --time-step-ms=, --asset-port= (external simulators over UDP).
 * Prints a health line per second (rx/tx rates, drops by reason, fail-safe state) and stops cleanly on SIGINT
 * and SIGTERM.
 */
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import {
  DEFAULT_CMD_PORT,
  DEFAULT_STATE_IP,
  DEFAULT_STATE_PORT,
  REJECT_REASONS,
  RealtimeServer,
  type RealtimeConfig,
  type RealtimeCounters,
  type RealtimeWorld,
  VDS1_VERSION,
  isVds1Version,
  loadWorldFile,
  seedWorld,
  SourceFilter,
  SourceListError,
  isLoopbackAddress,
} from '../cosim/index.js';
import { LEVELS, type Level } from '../plant/types.js';
import type { FailsafeSteer } from '../plant/runners/real-time.js';
import { createSystemClock } from '../time/clock.js';
import { TimeSettingsError, openAssetPort, parseTimeSettings, type TimeJson, type TimeSettings } from '../time/index.js';
import { ioPlugin } from '../server/io-plugin.js';
import { installBodyPolicy } from '../server/plugins/body-policy.js';
import { type Command, UsageError } from './commands.js';

const USAGE = [
  'vils realtime <vehicle.yaml> <tire.yaml> [--level=L1|L2|L3] [--cmd-port=7001] [--state-ip=127.0.0.1] [--state-port=7002] [--rate=200] [--vx0=0] [--cmd-timeout=0.1]',
  '       vils realtime --scene=<world|scene.yaml> [--cmd-port=] [--state-ip=] [--state-port=] [--rate=] [--time-scale=] [--cmd-timeout=] [--lugre|--no-lugre] [--catalog=<dir>]',
  '       common: [--protocol=1..5] [--failsafe=straight|hold-steer] [--failsafe-brake=0.3] [--http-port=N [--http-host=127.0.0.1]] [--io-timeout=0] [--t-end=S] [--bind=127.0.0.1 [--allow=a.b.c.d[/n],...]] [--auto-subscribers=4] [--spin-us=1500] [--priority=<nice>] [--allow-duplicate-keys] [--quiet] [--json]',
  '       time: [--time-mode=realtime|afap|lockstep] [--dmax-ms=100] [--time-step-ms=1] [--asset-port=N]',
].join('\n');

export interface RealtimeIo {
  log(line: string): void;
  err(line: string): void;
}

export interface RealtimeHandle {
  server: RealtimeServer;
  http?: FastifyInstance;
  /** Bound ports: command ports and the HTTP port (when served). */
  cmdPorts: number[];
  httpPort?: number;
  /** the external time-asset port (--asset-port) */
  assetPort?: number;
  /** Resolves with the exit code once stopped (stop(), t_end, or a signal). */
  done: Promise<number>;
  stop(): Promise<void>;
}

function numberOpt(v: string | undefined, name: string, min: number, max: number, integer = false): number | undefined {
  if (v === undefined) return undefined;
  const x = Number(v);
  if (v.trim() === '' || !Number.isFinite(x) || x < min || x > max || (integer && !Number.isInteger(x))) throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}], got '${v}'`);
  return x;
}

/** VDSim's `--lugre` / `--no-lugre` / `--lugre=on|off|1|0|true|false`, taken out of argv. */
function takeLugre(argv: string[]): { rest: string[]; lugre?: boolean } {
  let lugre: boolean | undefined;
  const rest: string[] = [];
  for (const a of argv) {
    if (a === '--lugre') lugre = true;
    else if (a === '--no-lugre') lugre = false;
    else if (a.startsWith('--lugre=')) {
      const v = a.slice(8);
      if (['', '1', 'on', 'true'].includes(v)) lugre = true;
      else if (['0', 'off', 'false'].includes(v)) lugre = false;
      else if (Number.isFinite(Number(v))) lugre = Number(v) > 0.5;
      else throw new UsageError(`--lugre takes on|off|1|0|true|false, got '${v}'`);
    } else rest.push(a);
  }
  return { rest, lugre };
}

const TIME_FLAGS: Record<string, string> = { mode: '--time-mode', dmax_ms: '--dmax-ms', step_ms: '--time-step-ms', asset_port: '--asset-port' };

/** The conductor in a few words: the plant's skew to Tc, and each external asset's. */
function formatTime(t: TimeJson): string {
  const parts = t.assets.filter((a) => a.kind === 'simulated').map((a) => `${a.name} ${a.skew_ms.toFixed(0)} ms${a.lagging ? ' LAGGING' : ''}${a.held ? ` held ${a.held}` : ''}`);
  return `time ${t.mode}: ${parts.join(', ')}`;
}

function formatHealth(c: RealtimeCounters, prev: RealtimeCounters, dtS: number, cpu: number, elapsedS: number, time: TimeJson): string {
  const rate = (a: number, b: number) => Math.round((a - b) / dtS);
  const drops = REJECT_REASONS.filter((r) => c.drops[r] > 0).map((r) => `${r} ${c.drops[r]}`);
  if (c.refusedSources > 0) drops.push(`not allowed ${c.refusedSources}`);
  if (c.subscribersRefused > 0) drops.push(`subscribers refused ${c.subscribersRefused}`);
  const veh = c.vehicles.map((v) => `v${v.id} ${v.failsafe ? 'FAILSAFE' : 'ok'}${v.failsafeEntries ? ` (${v.failsafeEntries}×)` : ''}`);
  return [
    `[vils realtime] ${elapsedS.toFixed(0)} s`,
    formatTime(time),
    `rx ${rate(c.rx, prev.rx)}/s (ok ${rate(c.accepted, prev.accepted)}/s)`,
    `tx ${rate(c.txDatagrams, prev.txDatagrams)}/s`,
    `drops ${drops.length ? drops.join(', ') : '0'}`,
    `overruns ${c.overruns} (late max ${(c.maxLateS * 1000).toFixed(1)} ms)`,
    `cpu ${(cpu * 100).toFixed(0)}%`,
    veh.join(' '),
  ].join(' | ');
}

export interface ParsedRealtime {
  config: RealtimeConfig;
  time: TimeSettings;
  http?: { port: number; host: string };
  quiet: boolean;
  json: boolean;
  warnings: string[];
  banner: string;
}

/** The command line as the server will run it (exported so its defaults can be checked without binding ports). */
export async function parseRealtimeArgs(argv: string[]): Promise<ParsedRealtime> {
  const { rest, lugre } = takeLugre(argv);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      scene: { type: 'string' },
      scenario: { type: 'string' },
      level: { type: 'string' },
      'cmd-port': { type: 'string' },
      'state-ip': { type: 'string' },
      'state-port': { type: 'string' },
      rate: { type: 'string' },
      vx0: { type: 'string' },
      'cmd-timeout': { type: 'string' },
      'time-scale': { type: 'string' },
      protocol: { type: 'string' },
      failsafe: { type: 'string' },
      'failsafe-brake': { type: 'string' },
      'http-port': { type: 'string' },
      'http-host': { type: 'string' },
      'io-timeout': { type: 'string' },
      catalog: { type: 'string', multiple: true },
      't-end': { type: 'string' },
      bind: { type: 'string' },
      allow: { type: 'string', multiple: true },
      'auto-subscribers': { type: 'string' },
      'spin-us': { type: 'string' },
      priority: { type: 'string' },
      'allow-duplicate-keys': { type: 'boolean' },
      quiet: { type: 'boolean' },
      json: { type: 'boolean' },
      'time-mode': { type: 'string' },
      'dmax-ms': { type: 'string' },
      'time-step-ms': { type: 'string' },
      'asset-port': { type: 'string' },
    },
  });
  const timeRaw: Record<string, unknown> = {};
  if (values['time-mode'] !== undefined) timeRaw.mode = values['time-mode'];
  const dmaxMs = numberOpt(values['dmax-ms'], 'dmax-ms', 0.001, 3_600_000);
  const stepMs = numberOpt(values['time-step-ms'], 'time-step-ms', 0.001, 1000);
  const assetPort = numberOpt(values['asset-port'], 'asset-port', 0, 65535, true);
  if (dmaxMs !== undefined) timeRaw.dmax_ms = dmaxMs;
  if (stepMs !== undefined) timeRaw.step_ms = stepMs;
  if (assetPort !== undefined) timeRaw.asset_port = assetPort;
  const scene = values.scene ?? values.scenario;
  const warnings: string[] = [];
  if (values.scenario && !values.scene) warnings.push('--scenario= is deprecated; use --scene=');
  const cmdPort = numberOpt(values['cmd-port'], 'cmd-port', 0, 65535, true);
  const statePort = numberOpt(values['state-port'], 'state-port', 1, 65535, true);
  const cliRate = numberOpt(values.rate, 'rate', 1, 10_000);
  const cliTimeout = numberOpt(values['cmd-timeout'], 'cmd-timeout', -1, 3600);
  const cliTimeScale = numberOpt(values['time-scale'], 'time-scale', 0, 1000);
  const protocol = numberOpt(values.protocol, 'protocol', 1, 5, true) ?? VDS1_VERSION;
  if (!isVds1Version(protocol)) throw new UsageError(`--protocol must be 1..5`);
  const failsafe = (values.failsafe ?? 'straight') as string;
  if (!['straight', 'hold-steer'].includes(failsafe)) throw new UsageError(`--failsafe must be straight (VDSim: brake, steer 0) or hold-steer (AutoHYU contract), got '${failsafe}'`);
  const failsafeSteer: FailsafeSteer = failsafe === 'hold-steer' ? 'hold' : 'zero';
  const failsafeBrake = numberOpt(values['failsafe-brake'], 'failsafe-brake', 0, 1);
  const httpPort = numberOpt(values['http-port'], 'http-port', 0, 65535, true);
  const ioTimeoutS = numberOpt(values['io-timeout'], 'io-timeout', 0, 3600);
  const tEndS = numberOpt(values['t-end'], 't-end', 0, 1e9);
  const spinUs = numberOpt(values['spin-us'], 'spin-us', 0, 20_000);
  const priority = numberOpt(values.priority, 'priority', -20, 19, true);
  if (priority !== undefined) {
    try {
      setPriority(priority);
    } catch (err) {
      warnings.push(`--priority=${priority} not applied (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): lowering the niceness needs CAP_SYS_NICE`);
    }
  }
  const stateIp = values['state-ip'] ?? DEFAULT_STATE_IP;
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(stateIp)) throw new UsageError(`--state-ip must be an IPv4 address, got '${stateIp}'`);
  const allowSources = (values.allow ?? []).flatMap((a) => a.split(',')).map((a) => a.trim()).filter(Boolean);
  try {
    new SourceFilter(allowSources);
  } catch (err) {
    if (err instanceof SourceListError) throw new UsageError(`--allow: ${err.message}`);
    throw err;
  }
  if (values.bind !== undefined && !isLoopbackAddress(values.bind) && allowSources.length === 0) {
    throw new UsageError(`--bind=${values.bind} answers other machines: name whose commands are taken with --allow=<addresses or a.b.c.d/n blocks> (loopback is always taken)`);
  }
  const maxAutoSubscribers = numberOpt(values['auto-subscribers'], 'auto-subscribers', 0, 1000, true);
  const loadOpts = { lugre, allowDuplicateKeys: values['allow-duplicate-keys'] ?? false, catalogDirs: values.catalog ?? [] };

  let world: RealtimeWorld;
  let dt: number;
  let cmdTimeoutS: number;
  let timeScale = cliTimeScale && cliTimeScale > 0 ? cliTimeScale : 1;
  let timeScaleFile: string | undefined;
  let sceneTEnd = 0;
  let banner: string;
  if (scene) {
    if (positionals.length > 0) throw new UsageError('give either --scene=<yaml> or <vehicle.yaml> <tire.yaml>, not both');
    if (values.level || values.vx0) throw new UsageError('--level and --vx0 belong to the <vehicle.yaml> <tire.yaml> form; a scene sets them per vehicle');
    const w = await loadWorldFile(scene, loadOpts);
    warnings.push(...w.warnings);
    // VDSim's precedence: the scene's rate / cmd_timeout (defaulted to 200 Hz / 0.1 s by the loader) win.
    const rate = w.rate > 1 ? w.rate : (cliRate ?? 200);
    if (cliRate !== undefined && w.rate > 1 && cliRate !== w.rate) warnings.push(`--rate=${cliRate} ignored: the scene's rate (${w.rate} Hz) wins, as in vdsim_realtime`);
    dt = w.dt > 0 ? w.dt : 1 / rate;
    cmdTimeoutS = w.cmdTimeout > 0 ? w.cmdTimeout : (cliTimeout ?? 0.1);
    if (cliTimeout !== undefined && w.cmdTimeout > 0 && cliTimeout !== w.cmdTimeout) warnings.push(`--cmd-timeout=${cliTimeout} ignored: the scene's cmd_timeout (${w.cmdTimeout} s) wins, as in vdsim_realtime`);
    if (!(cliTimeScale && cliTimeScale > 0) && w.timeScale > 0) timeScale = w.timeScale;
    timeScaleFile = join(dirname(scene), 'time_scale');
    sceneTEnd = w.tEnd;
    world = w;
    banner = `world ${w.vehicles.length} vehicle${w.vehicles.length > 1 ? 's' : ''} @ ${(1 / dt).toFixed(0)} Hz | ${w.comms ? `comms '${w.comms.name}'` : `cmd :${cmdPort ?? DEFAULT_CMD_PORT}`} | ${scene}`;
  } else {
    if (positionals.length !== 2) throw new UsageError('give <vehicle.yaml> <tire.yaml>, or --scene=<yaml>');
    const level = (values.level ?? 'L2').toUpperCase() as Level;
    if (!LEVELS.includes(level)) throw new UsageError(`--level must be one of ${LEVELS.join(', ')}, got '${values.level}'`);
    const w = seedWorld(positionals[0], positionals[1], { ...loadOpts, level, vx0: numberOpt(values.vx0, 'vx0', -100, 100) ?? 0 });
    warnings.push(...w.warnings);
    world = w;
    dt = 1 / (cliRate ?? 200);
    cmdTimeoutS = cliTimeout ?? 0.1;
    banner = `${w.label} ${level} @ ${(1 / dt).toFixed(0)} Hz | cmd :${cmdPort ?? DEFAULT_CMD_PORT} | state ${stateIp}:${statePort ?? DEFAULT_STATE_PORT}`;
  }
  // lockstep: the plant's step is the step every asset takes, unless given
  if (timeRaw.mode === 'lockstep' && timeRaw.step_ms === undefined) timeRaw.step_ms = Math.round(dt * 1e6) / 1000;
  let time: TimeSettings;
  try {
    time = parseTimeSettings(timeRaw, 'realtime');
  } catch (err) {
    if (err instanceof TimeSettingsError) throw new UsageError(`${TIME_FLAGS[err.key] ?? `time.${err.key}`}: ${err.message.replace(/^time\.[a-z_]*: /, '')}`);
    throw err;
  }
  return {
    config: {
      world,
      dt,
      cmdTimeoutS,
      timeScale,
      timeScaleFile,
      tEndS: tEndS ?? sceneTEnd,
      protocolVersion: protocol,
      failsafeSteer,
      failsafeBrake,
      ioTimeoutS,
      cmdPort: cmdPort ?? DEFAULT_CMD_PORT,
      stateIp,
      statePort: statePort ?? DEFAULT_STATE_PORT,
      bindAddress: values.bind,
      allowSources,
      maxAutoSubscribers,
      clock: spinUs !== undefined ? createSystemClock({ spinS: spinUs / 1e6 }) : undefined,
      time,
    },
    time,
    http: httpPort !== undefined ? { port: httpPort, host: values['http-host'] ?? '127.0.0.1' } : undefined,
    quiet: values.quiet ?? false,
    json: values.json ?? false,
    warnings,
    banner: `${banner} | VDS1 v${protocol} | cmd_timeout ${cmdTimeoutS} s, fail-safe ${failsafeSteer === 'hold' ? 'brake + hold steer' : 'brake + steer 0'}`,
  };
}

async function httpApp(server: RealtimeServer, host: string, port: number, allowTargets: SourceFilter): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify({ logger: false });
  // the same body policy as the scene server's (size, nesting, each route's schema), before any route
  installBodyPolicy(app);
  await app.register(swagger, { openapi: { info: { title: 'vils realtime — JSON data port', description: "VDSim's GUI data port (spec §4): command in, state out, UDP JSON telemetry targets.", version: '1' } } });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await app.register(ioPlugin, { ports: server.dataPort, allowTargets });
  await app.listen({ port, host });
  const addr = app.server.address();
  return { app, port: typeof addr === 'object' && addr ? addr.port : port };
}

/** Parses argv, binds everything and starts ticking; the caller decides how it stops. */
export async function startRealtime(argv: string[], io: RealtimeIo = { log: (l) => console.log(l), err: (l) => console.error(l) }): Promise<RealtimeHandle> {
  const p = await parseRealtimeArgs(argv);
  for (const w of p.warnings) io.err(`warning: ${w}`);
  let server: RealtimeServer;
  try {
    server = await RealtimeServer.create(p.config);
  } catch (err) {
    if (err instanceof TimeSettingsError) throw new UsageError(`${err.message} (the plant's step is 1/--rate)`);
    throw err;
  }
  for (const w of server.warnings) {
    // an allow-list of every address: a banner, not a line among others (and in /api/io's comms, and --json)
    if (w === server.allowWarning) io.err(`${'!'.repeat(100)}\nWARNING: ${w}\n${'!'.repeat(100)}`);
    else io.err(`warning: ${w}`);
  }
  let http: { app: FastifyInstance; port: number } | undefined;
  let assets: Awaited<ReturnType<typeof openAssetPort>> = null;
  try {
    if (p.http) http = await httpApp(server, p.http.host, p.http.port, new SourceFilter(p.config.allowSources ?? []));
    assets = await openAssetPort(server.time, p.time);
  } catch (err) {
    await http?.app.close();
    await server.close();
    throw err;
  }
  io.err(`[vils realtime] ${p.banner}${http ? ` | http :${http.port}` : ''} | time ${p.time.mode} (dmax ${p.time.dmax_ms} ms)${assets ? ` | time assets udp ${p.time.asset_host}:${assets.port}` : ''}`);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let prev = server.counters();
  let prevT = t0;
  let prevCpu = cpu0;
  const timer = p.quiet
    ? undefined
    : setInterval(() => {
        const c = server.counters();
        const t = performance.now();
        const cpu = process.cpuUsage();
        const cpuShare = (cpu.user - prevCpu.user + cpu.system - prevCpu.system) / 1000 / (t - prevT);
        io.log(formatHealth(c, prev, (t - prevT) / 1000, cpuShare, (t - t0) / 1000, server.timeStatus()));
        prev = c;
        prevT = t;
        prevCpu = cpu;
      }, 1000);
  timer?.unref();
  const running = server.run();
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      server.stop();
      await running.catch(() => undefined);
      if (timer) clearInterval(timer);
      await assets?.server.close();
      await http?.app.close();
      await server.close();
    })();
    return stopping;
  };
  const done = running.then(
    async () => {
      await stop();
      const wallS = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const c = server.counters();
      const summary = { ...c, ...(server.allowWarning ? { allow_warning: server.allowWarning } : {}), wall_s: wallS, cpu_s: (cpu.user + cpu.system) / 1e6, cpu_share: (cpu.user + cpu.system) / 1e6 / wallS, dt: p.config.dt, protocol: server.protocolVersion, mode: server.mode, time: server.timeStatus() };
      if (p.json) io.log(JSON.stringify(summary));
      else io.err(`[vils realtime] stopped after ${wallS.toFixed(1)} s: ${c.ticks} ticks, ${c.overruns} overruns, ${c.accepted} cmds accepted, ${c.rx - c.accepted} dropped, ${c.txDatagrams} datagrams sent`);
      return 0;
    },
    async (err: Error) => {
      await stop();
      io.err(`vils realtime: ${err.message}`);
      return 1;
    },
  );
  return { server, http: http?.app, cmdPorts: [...server.cmdPorts], httpPort: http?.port, assetPort: assets?.port, done, stop };
}

export const realtimeCommand: Command = {
  name: 'realtime',
  summary: "VDSim's vdsim_realtime: the plant in real time over VDS1 UDP (CMD in, STATE out), comms router, JSON data port",
  usage: USAGE,
  async run(argv) {
    const h = await startRealtime(argv);
    const onSignal = () => void h.stop();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      return await h.done;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
