/**
 * The VILS server: fastify (pino logs) with the WebSocket stream, the REST API and its OpenAPI document
 * at /docs, around one VilsSession stepped by a PacedLoop.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { GeoFrame, FMTC_ORIGIN, type LatLon } from '../geo/frame.js';
import { loadMapFile } from '../map/scene-json.js';
import { PolicySession, projectRoot, resolvePolicyModel } from '../policy/index.js';
import { ClientRegistry } from './clients.js';
import { DEFAULT_CONFIG, type SessionConfig } from './config.js';
import { PacedLoop, RollingStats } from './loop.js';
import { registerRest } from './rest.js';
import { InputError, VilsSession } from './session.js';
import { MAX_MESSAGE_BYTES, registerStream, type WsCounters } from './ws.js';

export const DEFAULT_MAP = 'maps/demo-track.json';

export interface ServerOptions {
  mapPath?: string;
  modelPath?: string;
  origin?: LatLon;
  config?: Partial<SessionConfig>;
  /** pino level; false disables logging */
  logLevel?: string | false;
  /** start the loop at once (default true) */
  autostart?: boolean;
  intraOpThreads?: number;
}

export interface VilsServer {
  app: FastifyInstance;
  session: VilsSession;
  loop: PacedLoop;
  clients: ClientRegistry;
  close(): Promise<void>;
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export async function createServer(opts: ServerOptions = {}): Promise<VilsServer> {
  const mapPath = opts.mapPath ?? join(projectRoot(), DEFAULT_MAP);
  const map = loadMapFile(mapPath);
  const origin = opts.origin ?? map.mapMetadata?.origin ?? FMTC_ORIGIN;
  const geo = new GeoFrame({ lat: origin.lat, lon: origin.lon });
  const policy = await PolicySession.load(resolvePolicyModel({ model: opts.modelPath }), { intraOpThreads: opts.intraOpThreads ?? 1 });
  const session = new VilsSession(map, policy, geo, { ...DEFAULT_CONFIG, ...opts.config });

  const app = Fastify({
    logger: opts.logLevel === false ? false : { level: opts.logLevel ?? 'info' },
    bodyLimit: MAX_MESSAGE_BYTES,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });
  const clients = new ClientRegistry(() => session.config.max_queue);
  const counters: WsCounters = { messages: 0, errors: 0 };
  const version = packageVersion();
  const startedAt = Date.now();
  const delivery = new RollingStats(600);
  const encoding = new RollingStats(600);

  const loop = new PacedLoop(
    1000 / session.config.step_hz,
    async (nowMs) => {
      const frame = await session.stepOnce(nowMs, (performance.timeOrigin + nowMs) / 1000);
      const t = performance.now();
      const text = JSON.stringify(frame);
      encoding.push(performance.now() - t);
      clients.broadcast(text);
      delivery.push(performance.now() - t);
    },
    () => performance.now(),
    (err) => app.log.error({ err }, 'simulation step failed'),
  );

  const start = () => {
    session.state = 'running';
    loop.start();
  };
  const pause = () => {
    session.state = 'paused';
    loop.stop();
  };
  const status = () => ({
    state: session.state,
    step: session.step,
    sim_time_s: Math.round((session.step / session.config.step_hz) * 1000) / 1000,
    map: map.label,
    origin: geo.origin,
    convergence_deg: geo.originConvergenceDeg,
    policy: policy.metadata.source_file ?? policy.modelPath,
    egos: session.egoList(),
    npcs: session.engine.npcCount,
    clients: clients.size,
    timings: session.lastFrame?.metrics ?? null,
    loop: { ...loop.stats },
    dropped_frames: clients.dropped(),
    broadcast_ms: delivery.summary(),
    encode_ms: encoding.summary(),
    ws_messages: counters.messages,
    ws_errors: counters.errors,
    collisions_with_ego: session.collisionsWithEgo,
    trips: { ...session.trips, under_way: session.openTripCount() },
    rss_mb: Math.round(process.memoryUsage().rss / 1e5) / 10,
  });
  const applyConfig = (patch: Partial<SessionConfig>) => {
    const before = session.config.step_hz;
    Object.assign(session.config, patch);
    if (patch.step_hz !== undefined && patch.step_hz !== before) loop.setPeriod(1000 / patch.step_hz);
  };

  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    if (err instanceof InputError) return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: err.message });
    const code = err.statusCode ?? 500;
    if (code >= 500) app.log.error({ err }, 'request failed');
    return reply.code(code).send({ statusCode: code, error: code >= 500 ? 'Internal Server Error' : 'Bad Request', message: err.message });
  });

  await app.register(swagger, {
    openapi: {
      info: { title: 'VILS server', description: 'Vehicle-In-the-Loop Simulation: REST control. The WebSocket stream is at /ws/vils/stream (see the README).', version },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await app.register(websocket, { options: { maxPayload: MAX_MESSAGE_BYTES } });
  registerStream(app, session, clients, counters);
  registerRest(app, { session, start, pause, status, applyConfig, version, startedAt });

  session.reset();
  if (opts.autostart ?? true) start();
  else session.state = 'stopped';

  return {
    app, session, loop, clients,
    async close() {
      loop.stop();
      clients.closeAll();
      await app.close();
      await policy.release();
    },
  };
}
