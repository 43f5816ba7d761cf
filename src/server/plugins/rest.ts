/**
 * The REST API of a scene under /api (seed §3.4.2 plus NPC and ego control), as a fastify plugin. Every
 * body and reply has a JSON schema (the OpenAPI document at /docs is built from them).
 */
import type { FastifyInstance } from 'fastify';
import { InputError } from '../../scene/index.js';
import type { SceneHost, SessionConfig } from '../host.js';
import { configSchema, egoViewSchema, errorReplySchema, npcSpawnSchema, npcViewSchema } from '../schemas.js';
import { egoEntry, mapPoint, npcDetail } from '../wire.js';
import { signalsPlugin } from './signals.js';
import { storyPlugin } from './story.js';

const obj = { type: 'object', additionalProperties: true } as const;
const stateReply = { type: 'object', properties: { state: { type: 'string' } } } as const;
const errors = { 400: errorReplySchema, 404: errorReplySchema };
const notFound = (what: string) => ({ statusCode: 404, error: 'Not Found', message: what });

interface SpawnBody {
  x?: number; y?: number; lat?: number; lon?: number; heading?: number; yaw?: number; speed?: number; length?: number; width?: number;
  goal?: { x?: number; y?: number; lat?: number; lon?: number };
  keep_driving?: boolean;
}

export async function restPlugin(app: FastifyInstance, opts: { host: SceneHost }): Promise<void> {
  const { host } = opts;
  const { scene, runner, geo, inputs } = host;

  // (bodies too large, too deep or not matching a route's schema are refused by the app's body policy,
  // plugins/body-policy.ts, before any handler; the refusals go through the hooks below and are recorded)

  // every command (not the reads) as received, with its reply, for the recording
  const arrivals = new WeakMap<object, { wall: number; sim: number; reply: string }>();
  app.addHook('onRequest', async (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') arrivals.set(req, { wall: Date.now() / 1000, sim: runner.simNow(), reply: '' });
  });
  app.addHook('onSend', async (req, _reply, payload) => {
    const a = arrivals.get(req);
    if (a && typeof payload === 'string') a.reply = payload.length > 4096 ? `${payload.slice(0, 4096)}…` : payload;
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    const a = arrivals.get(req);
    if (!a) return;
    inputs.received({ kind: 'rest', method: req.method, url: req.url, body: req.body ?? null, status: reply.statusCode, reply: a.reply, arrivalWall: a.wall, simTime: a.sim });
  });

  app.get('/api/status', { schema: { tags: ['status'], response: { 200: obj } } }, async () => host.status());

  app.get('/api/config', { schema: { tags: ['config'], response: { 200: configSchema } } }, async () => host.config());

  app.put<{ Body: Partial<SessionConfig> }>('/api/config', { schema: { tags: ['config'], body: configSchema, response: { 200: configSchema, ...errors } } }, async (req) => host.changeConfig(req.body));

  app.post<{ Body: { npc_count?: number; seed?: number; start?: boolean } | undefined }>('/api/init', {
    schema: {
      tags: ['simulation'],
      description: 'A new scenario: NPCs respawned from the seed with npc_count auto NPCs; egos forgotten. Started unless start is false (then paused).',
      body: { type: ['object', 'null'], additionalProperties: false, properties: { npc_count: { type: 'integer', minimum: 0, maximum: 63 }, seed: { type: 'integer', minimum: 0, maximum: 4294967295 }, start: { type: 'boolean' } } },
      response: { 200: obj, ...errors },
    },
  }, async (req) => {
    const body = req.body ?? {};
    const patch: Partial<SessionConfig> = {};
    if (body.npc_count !== undefined) patch.npc_target = body.npc_count;
    if (body.seed !== undefined) patch.seed = body.seed;
    await host.changeConfig(patch);
    await runner.reset();
    if (body.start ?? true) runner.start();
    else runner.pause();
    return host.status();
  });

  app.post('/api/reset', { schema: { tags: ['simulation'], description: 'The same scenario from time 0 (same seed); egos forgotten.', response: { 200: obj } } }, async () => {
    await runner.reset();
    return host.status();
  });

  app.post('/api/start', { schema: { tags: ['simulation'], response: { 200: stateReply } } }, async () => {
    runner.start();
    return { state: runner.state };
  });

  app.post('/api/pause', { schema: { tags: ['simulation'], response: { 200: stateReply } } }, async () => {
    runner.pause();
    return { state: runner.state };
  });

  // ---- NPCs ----

  app.get('/api/npcs', { schema: { tags: ['npcs'], response: { 200: { type: 'object', properties: { npcs: { type: 'array', items: npcViewSchema } } } } } }, async () => ({
    npcs: scene.snapshot(runner.simNow()).npcs.map((n) => npcDetail(geo, n)),
  }));

  app.post<{ Body: SpawnBody }>('/api/npcs', {
    schema: { tags: ['npcs'], body: npcSpawnSchema, response: { 200: { type: 'object', properties: { id: { type: 'integer' } } }, ...errors } },
  }, async (req) => {
    const b = req.body;
    const pos = mapPoint(geo, b);
    if (!pos) throw new InputError('position: give either x and y (map metres) or lat and lon');
    let yaw = b.yaw;
    if (b.heading !== undefined) {
      const ll = geo.toLatLon(pos.x, pos.y);
      yaw = geo.headingToYaw(b.heading, ll.lat, ll.lon);
    }
    let goal: { x: number; y: number } | undefined;
    if (b.goal) {
      const g = mapPoint(geo, b.goal);
      if (!g) throw new InputError('goal: give either x and y (map metres) or lat and lon');
      goal = g;
    }
    return { id: await inputs.spawnNpc({ x: pos.x, y: pos.y, yaw, speed: b.speed ?? 0, length: b.length, width: b.width, goal, keepDriving: b.keep_driving }) };
  });

  app.delete<{ Params: { id: string } }>('/api/npcs/:id', {
    schema: { tags: ['npcs'], params: { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9]+$' } } }, response: { 200: { type: 'object', properties: { removed: { type: 'integer' } } }, ...errors } },
  }, async (req, reply) => {
    const id = Number(req.params.id);
    if (!(await inputs.removeNpc(id))) return reply.code(404).send(notFound(`no NPC with id ${id}`));
    return { removed: id };
  });

  app.delete('/api/npcs', {
    schema: {
      tags: ['npcs'],
      description: 'Removes every NPC. Auto-spawn refills the map up to npc_target on the next step; set npc_target to 0 (PUT /api/config) to keep it empty.',
      response: { 200: { type: 'object', properties: { removed: { type: 'integer' }, npc_target: { type: 'integer' }, refill: { type: 'boolean' }, message: { type: 'string' } } } },
    },
  }, async () => {
    const removed = await inputs.removeAllNpcs();
    const target = scene.config.npc_target;
    return {
      removed, npc_target: target, refill: target > 0,
      message: target > 0 ? `removed ${removed} NPCs; auto-spawn refills to npc_target ${target} on the next step (set npc_target to 0 to keep the map empty)` : `removed ${removed} NPCs; npc_target is 0, so none come back`,
    };
  });

  // ---- egos ----

  app.get('/api/egos', { schema: { tags: ['egos'], response: { 200: { type: 'object', properties: { egos: { type: 'array', items: egoViewSchema } } } } } }, async () => ({
    egos: scene.snapshot(runner.simNow()).egos.map(egoEntry),
  }));

  app.delete<{ Params: { id: string } }>('/api/egos/:id', {
    schema: { tags: ['egos'], description: 'Forgets an ego at once (its id and world slot are freed).', params: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } }, response: { 200: { type: 'object', properties: { removed: { type: 'string' } } }, ...errors } },
  }, async (req, reply) => {
    if (!(await inputs.removeEgo(req.params.id))) return reply.code(404).send(notFound(`no ego with id "${req.params.id}"`));
    return { removed: req.params.id };
  });

  // ---- signals (a child of this plugin, so its commands are recorded by the hooks above) ----
  await app.register(signalsPlugin, { host });
  // ---- a served test case ----
  await app.register(storyPlugin, { host });
}
