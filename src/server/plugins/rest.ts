/** REST API under /api (seed §3.4.2 plus NPC control). Every body and reply has a JSON schema. */
import type { FastifyInstance } from 'fastify';
import { configSchema, errorReplySchema, npcSpawnSchema, npcViewSchema } from './schemas.js';
import { InputError, type VilsSession } from './session.js';
import type { SessionConfig } from './config.js';

export interface RestContext {
  session: VilsSession;
  start(): void;
  pause(): void;
  status(): Record<string, unknown>;
  applyConfig(patch: Partial<SessionConfig>): void;
  version: string;
  startedAt: number;
}

const obj = { type: 'object', additionalProperties: true } as const;
const stateReply = { type: 'object', properties: { state: { type: 'string' } } } as const;
const errors = { 400: errorReplySchema, 404: errorReplySchema };

export function registerRest(app: FastifyInstance, ctx: RestContext): void {
  const { session } = ctx;

  app.get('/api/health', { schema: { tags: ['status'], response: { 200: { type: 'object', properties: { status: { type: 'string' }, version: { type: 'string' }, uptime_s: { type: 'number' } } } } } }, async () => ({
    status: 'ok', version: ctx.version, uptime_s: (Date.now() - ctx.startedAt) / 1000,
  }));

  app.get('/api/status', { schema: { tags: ['status'], response: { 200: obj } } }, async () => ctx.status());

  app.get('/api/config', { schema: { tags: ['config'], response: { 200: configSchema } } }, async () => session.config);

  app.put<{ Body: Partial<SessionConfig> }>('/api/config', { schema: { tags: ['config'], body: configSchema, response: { 200: configSchema, ...errors } } }, async (req) => {
    ctx.applyConfig(req.body);
    return session.config;
  });

  app.get('/api/npcs', { schema: { tags: ['npcs'], response: { 200: { type: 'object', properties: { npcs: { type: 'array', items: npcViewSchema } } } } } }, async () => ({ npcs: session.npcList() }));

  app.post<{ Body: { npc_count?: number; seed?: number; start?: boolean } }>('/api/init', {
    schema: {
      tags: ['simulation'],
      body: { type: 'object', additionalProperties: false, properties: { npc_count: { type: 'integer', minimum: 0, maximum: 63 }, seed: { type: 'integer', minimum: 0 }, start: { type: 'boolean' } } },
      response: { 200: obj, ...errors },
    },
  }, async (req) => {
    const body = req.body ?? {};
    const patch: Partial<SessionConfig> = {};
    if (body.npc_count !== undefined) patch.npc_target = body.npc_count;
    if (body.seed !== undefined) patch.seed = body.seed;
    ctx.applyConfig(patch);
    session.reset();
    if (body.start ?? true) ctx.start();
    return ctx.status();
  });

  app.post('/api/reset', { schema: { tags: ['simulation'], response: { 200: obj } } }, async () => {
    session.reset();
    return ctx.status();
  });

  app.post('/api/start', { schema: { tags: ['simulation'], response: { 200: stateReply } } }, async () => {
    ctx.start();
    return { state: session.state };
  });

  app.post('/api/pause', { schema: { tags: ['simulation'], response: { 200: stateReply } } }, async () => {
    ctx.pause();
    return { state: session.state };
  });

  app.post<{ Body: { x?: number; y?: number; lat?: number; lon?: number; heading?: number; yaw?: number; speed?: number; length?: number; width?: number; goal?: { x?: number; y?: number; lat?: number; lon?: number } } }>('/api/npcs', {
    schema: { tags: ['npcs'], body: npcSpawnSchema, response: { 200: { type: 'object', properties: { id: { type: 'integer' } } }, ...errors } },
  }, async (req) => {
    const b = req.body;
    const pos = point(session, b, 'position');
    let yaw = b.yaw;
    if (b.heading !== undefined) {
      const ll = session.geo.toLatLon(pos.x, pos.y);
      yaw = session.geo.headingToYaw(b.heading, ll.lat, ll.lon);
    }
    const goal = b.goal ? point(session, b.goal, 'goal') : undefined;
    return { id: session.spawnNpc({ x: pos.x, y: pos.y, yaw, speed: b.speed ?? 0, length: b.length, width: b.width, goal }) };
  });

  app.delete<{ Params: { id: string } }>('/api/npcs/:id', {
    schema: { tags: ['npcs'], params: { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9]+$' } } }, response: { 200: { type: 'object', properties: { removed: { type: 'integer' } } }, ...errors } },
  }, async (req, reply) => {
    const id = Number(req.params.id);
    if (!session.removeNpc(id)) return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `no NPC with id ${id}` });
    return { removed: id };
  });

  app.delete('/api/npcs', { schema: { tags: ['npcs'], response: { 200: { type: 'object', properties: { removed: { type: 'integer' } } } } } }, async () => {
    const n = session.engine.npcCount;
    session.removeAllNpcs();
    return { removed: n };
  });
}

function point(session: VilsSession, p: { x?: number; y?: number; lat?: number; lon?: number }, what: string): { x: number; y: number } {
  const hasXY = p.x !== undefined && p.y !== undefined;
  const hasLL = p.lat !== undefined && p.lon !== undefined;
  if (hasXY === hasLL) throw new InputError(`${what}: give either x and y (local metres) or lat and lon`);
  if (hasXY) return { x: p.x as number, y: p.y as number };
  return session.geo.toLocal(p.lat as number, p.lon as number);
}
