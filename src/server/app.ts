/**
 * The VILS server: one fastify app (pino logs, OpenAPI at /docs) hosting one or more scenes. Each scene is
 * a SceneHost (scene, runner, clients) with its stream and REST plugins registered under its prefix: the
 * first scene at the root (/ws/vils/stream, /api/...), further ones under /scenes/<name>/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { LatLon } from '../geo/frame.js';
import { InputError, defaultMapPath, setupScene, type SceneConfig, type SceneSetupOptions } from '../scene/index.js';
import type { PolicySession } from '../policy/session.js';
import { projectRoot } from '../util/project-root.js';
import { SceneHost, type ServingConfig, type SessionConfig } from './host.js';
import { restPlugin } from './plugins/rest.js';
import { MAX_MESSAGE_BYTES, streamPlugin } from './plugins/stream.js';
import type { Clock } from '../time/clock.js';
import type { TimeSettings } from '../time/settings.js';
import { FoxgloveChannels, foxglovePlugin, handleProtocols, listenFoxglove } from './plugins/foxglove.js';
import { metricsPlugin } from './plugins/metrics.js';
import { DEFAULT_RECORDING, SceneRecorder, type RecordingSettings } from './recording.js';
import { mapPlugin } from './plugins/map.js';
import { loadWebBundle, webPlugin } from './plugins/web.js';
import { STATUS_CODES } from 'node:http';
import pinoPretty from 'pino-pretty';
import { AccessControl, type AccessSettings } from './access.js';
import { installAccess, listeningOn, redactToken } from './plugins/access.js';
import { installBodyPolicy } from './plugins/body-policy.js';
import { HEADERS_TIMEOUT_MS, MAX_BODY_BYTES, REQUEST_TIMEOUT_MS } from './body-policy.js';
import { watchLoops } from './watch.js';
import { wsErrorHandler } from './ws-errors.js';

export interface SceneOptions {
  /** URL-safe name; the first scene is served at the root whatever its name */
  name?: string;
  mapPath?: string;
  origin?: LatLon;
  config?: Partial<SessionConfig>;
  /** its time conductor (default: realtime, dmax 100 ms, no external-asset port) */
  time?: TimeSettings;
  /** a scenario's `signals:` (plans by junction, signals everywhere, actuated) */
  signals?: SceneSetupOptions['signals'];
}

export interface ServerOptions extends Omit<SceneOptions, 'name'> {
  modelPath?: string;
  /** more scenes in the same process, each with its own map (served under /scenes/<name>/) */
  scenes?: SceneOptions[];
  /** pino level; false disables logging */
  logLevel?: string | false;
  /** 'pretty': one readable line per event (for a terminal); 'json' (default): pino's JSON lines */
  logFormat?: 'pretty' | 'json';
  /** where the log goes (default stdout) */
  logStream?: NodeJS.WritableStream;
  /** who may do what, and the rate limits (default: no token, so every client is an operator; default limits) */
  access?: AccessControl | Partial<AccessSettings>;
  /** start the scenes at once (default true) */
  autostart?: boolean;
  intraOpThreads?: number;
  /** record every scene to MCAP (off unless given here; `vils serve` records by default) */
  recording?: Partial<RecordingSettings> | false;
  /** Foxglove WebSocket: at <scene prefix>/foxglove unless `path` is false, and on its own port when `port` is given */
  foxglove?: { path?: boolean; port?: number; host?: string };
  /** the runners' clock (tests: a VirtualClock runs the scenes as fast as they can) */
  clock?: Clock;
  epochNow?: () => number;
}

export interface VilsServer {
  app: FastifyInstance;
  /** every hosted scene; [0] is the default one */
  hosts: SceneHost[];
  /** the default scene */
  host: SceneHost;
  /** the Foxglove port, when one was asked for */
  foxglovePort?: number;
  close(): Promise<void>;
}

export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

const SCENE_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

function splitConfig(c: Partial<SessionConfig> = {}): { scene: Partial<SceneConfig>; serving: Partial<ServingConfig> } {
  const { publish_hz, max_queue, clock_offset_s, max_catch_up_s, ...scene } = c;
  const serving: Partial<ServingConfig> = {};
  if (max_catch_up_s !== undefined) serving.max_catch_up_s = max_catch_up_s;
  if (publish_hz !== undefined) serving.publish_hz = publish_hz;
  if (max_queue !== undefined) serving.max_queue = max_queue;
  if (clock_offset_s !== undefined) serving.clock_offset_s = clock_offset_s;
  return { scene, serving };
}

export { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from './body-policy.js';

export async function createServer(opts: ServerOptions = {}): Promise<VilsServer> {
  const access = opts.access instanceof AccessControl ? opts.access : new AccessControl(opts.access);
  const app = Fastify({
    logger: opts.logLevel === false ? false : {
      level: opts.logLevel ?? 'info',
      // a token given as ?token= never reaches the log
      serializers: { req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactToken(req.url), ip: req.ip }) },
      ...(opts.logFormat === 'pretty'
        ? { stream: pinoPretty({ colorize: opts.logStream === undefined, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname,reqId', sync: true, destination: opts.logStream ?? 1 }) }
        : opts.logStream ? { stream: opts.logStream } : {}),
    },
    // one line per request polled twice a second buries what happened: refusals and failures are logged instead
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: MAX_BODY_BYTES,
    // a request (a WebSocket upgrade too) must have sent its headers within 5 s and be whole within 30 s:
    // half-open upgrades were held 15 s and more, each an open socket (Node checks these once a second here)
    requestTimeout: REQUEST_TIMEOUT_MS,
    http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    // (validation: the body policy's strict compiler, installed below)
  });
  // before any route: every body is bounded the same way (size, nesting, the route's schema), whoever registers it
  installBodyPolicy(app);
  const version = packageVersion();
  const startedAt = Date.now();
  const specs: SceneOptions[] = [{ name: 'default', mapPath: opts.mapPath, origin: opts.origin, config: opts.config, time: opts.time, signals: opts.signals }, ...(opts.scenes ?? [])];
  const names = new Set<string>();
  for (const s of specs) {
    const name = s.name ?? 'default';
    if (!SCENE_NAME.test(name)) throw new Error(`scene name "${name}": use 1–32 lowercase letters, digits, - or _`);
    if (names.has(name)) throw new Error(`scene name "${name}" is used twice`);
    names.add(name);
  }

  const hosts: SceneHost[] = [];
  let shared: PolicySession | undefined;
  try {
    for (const s of specs) {
      const { scene, serving } = splitConfig(s.config);
      const setup = await setupScene({ mapPath: s.mapPath, origin: s.origin, config: scene, modelPath: opts.modelPath, policy: shared, intraOpThreads: opts.intraOpThreads, signals: s.signals });
      shared ??= setup.policy;
      const host = new SceneHost(setup, { name: s.name ?? 'default', serving, logger: app.log, version, clock: opts.clock, epochNow: opts.epochNow, time: s.time });
      hosts.push(host);
      const assetPort = await host.time.open();
      if (assetPort !== null) app.log.info({ scene: host.name, port: assetPort }, `scene ${host.name}: external time assets on UDP ${host.time.settings.asset_host}:${assetPort} (${host.time.settings.mode}, dmax ${host.time.settings.dmax_ms} ms)`);
      const fox = new FoxgloveChannels(host, { onError: (err) => app.log.debug({ err, scene: host.name }, 'foxglove client message refused') });
      host.runner.addSink(fox);
      host.attachments.set('foxglove', fox);
      if (opts.recording) {
        const settings = { ...DEFAULT_RECORDING, ...opts.recording };
        if (settings.enabled) {
          try {
            await SceneRecorder.start(host, settings, { mapPath: s.mapPath ?? defaultMapPath(), intraOpThreads: opts.intraOpThreads ?? 1, version });
          } catch (err) {
            // the session goes on unrecorded rather than not at all; the status says so
            app.log.error({ err, scene: host.name }, `recording is off for scene ${host.name}: ${(err as Error).message}`);
            host.attachments.set('recording', { status: () => ({ enabled: false, error: (err as Error).message }), close: async () => {} });
          }
        }
      }
    }
  } catch (err) {
    for (const h of hosts) await h.close();
    throw err;
  }

  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    if (err instanceof InputError) return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: err.message });
    const code = err.statusCode ?? 500;
    if (code >= 500) app.log.error({ err }, 'request failed');
    return reply.code(code).send({ statusCode: code, error: STATUS_CODES[code] ?? 'Error', message: err.message });
  });

  // before any route: the Host, Origin and token checks and the REST rate limits apply to every one
  await installAccess(app, access, app.log, opts.logFormat === 'pretty' ? 'pretty' : 'json');
  for (const h of hosts) h.attachments.set('access', { status: () => access.status(listeningOn(app)), close: async () => {} });

  await app.register(swagger, {
    openapi: {
      info: { title: 'VILS server', description: 'Vehicle-In-the-Loop Simulation: REST control. The WebSocket stream is at /ws/vils/stream (see docs/car-in-the-loop.md).', version },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await app.register(websocket, {
    // one message per connection per turn of the event loop (ws defers each 'message' to setImmediate, and
    // stops reading a connection with 16 KiB waiting): a flood is read between the runner's ticks, never in one
    // long read that holds the tick past its period, and what the server cannot read waits in the client's TCP
    // buffers, not in its memory (issue 44: the step under a flood with every core busy)
    options: { maxPayload: MAX_MESSAGE_BYTES, handleProtocols, allowSynchronousEvents: false },
    // a client's broken frame or lost connection is the client's problem (the stream logs it as a warning);
    // only a failure of the server's own code is an error. A protocol error (a message over 64 KiB) is closed by
    // ws with its code (1009), never cut short by a terminate (ws-errors.ts)
    errorHandler: (err: Error & { code?: string }, socket, req) => wsErrorHandler(err, socket, req.log),
  });
  await app.register(metricsPlugin, { hosts });

  app.get('/api/health', { schema: { tags: ['status'], response: { 200: { type: 'object', properties: { status: { type: 'string' }, version: { type: 'string' }, uptime_s: { type: 'number' }, scenes: { type: 'array', items: { type: 'string' } } } } } } }, async () => ({
    status: 'ok', version, uptime_s: (Date.now() - startedAt) / 1000, scenes: hosts.map((h) => h.name),
  }));

  const web = loadWebBundle();
  if (web.missing) app.log.warn(web.missing);
  for (const [i, host] of hosts.entries()) {
    const prefix = i === 0 ? '' : `/scenes/${host.name}`;
    await app.register(async (scoped) => {
      await scoped.register(streamPlugin, { host, access });
      await scoped.register(restPlugin, { host });
      if (opts.foxglove?.path ?? true) await scoped.register(foxglovePlugin, { channels: host.attachments.get('foxglove') as FoxgloveChannels });
      await scoped.register(mapPlugin, { host });
      await scoped.register(webPlugin, { bundle: web });
    }, { prefix });
  }

  for (const h of hosts) {
    await h.runner.reset();
    if (opts.autostart ?? true) h.runner.start();
  }
  const stopWatching = watchLoops(hosts, app.log);

  let foxPort: Awaited<ReturnType<typeof listenFoxglove>> | null = null;
  try {
    foxPort = opts.foxglove?.port !== undefined
      ? await listenFoxglove(hosts.map((h) => ({ name: h.name, channels: h.attachments.get('foxglove') as FoxgloveChannels })), opts.foxglove.port, opts.foxglove.host ?? '0.0.0.0', (req) => access.checkUpgrade(req))
      : null;
  } catch (err) {
    // (a port in use): nothing started may keep the process alive
    stopWatching();
    for (const h of hosts) await h.close();
    await app.close();
    const e = err as NodeJS.ErrnoException;
    throw Object.assign(new Error(`Foxglove port ${opts.foxglove?.port}: ${e.code === 'EADDRINUSE' ? 'the port is in use (EADDRINUSE); choose another --foxglove-port' : e.message}`), { code: e.code });
  }

  return {
    app, hosts, host: hosts[0], foxglovePort: foxPort?.port,
    async close() {
      stopWatching();
      await foxPort?.close();
      for (const h of hosts) await h.close();
      await app.close();
    },
  };
}
