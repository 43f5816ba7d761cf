/**
 * Access control on the whole app (every scene, every route, 404s too), installed on the root instance
 * before any route: the Host check (DNS rebinding), the Origin check and CORS for browsers, who the client
 * is (token → role) and whether the route allows it, and the REST rate limits (@fastify/rate-limit, per
 * client: token, else address; reads and commands counted apart). Refusals are answered with the reason
 * and logged as warnings, at most once per client and reason every 10 s.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AccessError, isLoopback, openWarning, openWarningParts, type AccessControl, type Peer } from '../access.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** who sent the request (set by the access hook) */
    vilsPeer: Peer | null;
  }
  interface FastifyInstance {
    /** the server's access control (set by installAccess): WebSocket routes take their input limits from it */
    vilsAccess?: AccessControl;
  }
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOG_EVERY_MS = 10_000;

export interface AccessLog {
  warn(obj: object, msg: string): void;
}

/** The addresses the app listens on, as "host:port". */
export function listeningOn(app: FastifyInstance): string[] {
  try {
    return app.addresses().map((a) => (typeof a === 'string' ? a : a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`));
  } catch {
    return [];
  }
}

/**
 * `pretty`: the log is read on a terminal, where the open-server warning is framed by lines of "!" to stand out;
 * `json`: it is read by programs (piped to a file, a collector), one JSON object per line, the warning's parts as
 * fields and its message one line — a frame there was one string full of "\n".
 */
export type LogFormat = 'pretty' | 'json';

export async function installAccess(app: FastifyInstance, access: AccessControl, log: AccessLog, format: LogFormat = 'json'): Promise<void> {
  const lastLogged = new Map<string, number>();
  const refuse = (req: FastifyRequest, reply: FastifyReply, code: number, message: string, who = req.ip) => {
    const key = `${who} ${code} ${req.method} ${req.url.split('?')[0]}`;
    const now = Date.now();
    if ((lastLogged.get(key) ?? 0) + LOG_EVERY_MS <= now) {
      if (lastLogged.size > 10_000) lastLogged.clear();
      lastLogged.set(key, now);
      log.warn({ client: who, method: req.method, url: redactToken(req.url), status: code }, `refused ${req.method} ${redactToken(req.url).split('?')[0]} from ${who}: ${message}`);
    }
    const error = code === 401 ? 'Unauthorized' : code === 403 ? 'Forbidden' : code === 415 ? 'Unsupported Media Type' : 'Too Many Requests';
    // a refused WebSocket upgrade: the answer is the last thing on that socket (the stream plugin's own
    // clean-up of upgrade sockets runs after this hook, so it never sees the request)
    const socket = req.raw.socket;
    if (String(req.headers.upgrade ?? '').toLowerCase() === 'websocket') reply.header('connection', 'close').raw.once('finish', () => socket.end());
    return reply.code(code).header('cache-control', 'no-store').send({ statusCode: code, error, message });
  };

  app.decorateRequest('vilsPeer', null);
  if (!app.hasDecorator('vilsAccess')) app.decorate('vilsAccess', access);
  app.addHook('onRequest', async (req, reply) => {
    const host = req.headers.host;
    if (!access.hostAllowed(host)) {
      access.refused.host++;
      return refuse(req, reply, 403, `this server does not answer to the host name "${String(host).slice(0, 100)}" (add it to allowed_hosts)`);
    }
    const method = req.method;
    const path = req.url.split('?')[0];
    const upgrade = String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
    // a state change or a stream connection from a browser page must come from an allowed origin
    const guarded = upgrade || !SAFE.has(method);
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const allowed = access.originAllowed(origin, host);
      if (allowed && access.corsOrigin(origin)) reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
      if (method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        if (!allowed) {
          access.refused.origin++;
          return refuse(req, reply, 403, `origin ${origin.slice(0, 100)} is not allowed (allowed_origins)`);
        }
        return reply.code(204)
          .header('access-control-allow-methods', 'GET, POST, PUT, DELETE')
          .header('access-control-allow-headers', 'authorization, content-type')
          .header('access-control-max-age', '600')
          .send();
      }
      if (guarded && !allowed) {
        access.refused.origin++;
        return refuse(req, reply, 403, `origin ${origin.slice(0, 100)} is not allowed (allowed_origins)`);
      }
    } else if (guarded && req.headers['sec-fetch-site'] === 'cross-site') {
      access.refused.origin++;
      return refuse(req, reply, 403, 'a cross-site request without an Origin is not allowed');
    }
    // a command's body is JSON: a form or text/plain POST (a cross-site "simple request") is never one
    const type = req.headers['content-type'];
    if (!SAFE.has(method) && type !== undefined && !/^application\/json\s*(;|$)/i.test(type)) {
      return refuse(req, reply, 415, `a request body must be application/json, not ${type.slice(0, 60)}`);
    }
    let peer: Peer;
    try {
      // a client closed for flooding is turned away at the door for a while, before any WebSocket work
      if (upgrade) {
        const q0 = (req.query as Record<string, unknown> | undefined)?.token;
        const who = access.identify(req.headers.authorization, typeof q0 === 'string' ? q0 : undefined, req.ip);
        const wait = access.shutOut(who);
        if (wait > 0) {
          access.refused.shut_out++;
          return refuse(req, reply, 429, `closed for flooding: reconnect in ${Math.ceil(wait)} s`, who.label);
        }
      }
      const q = (req.query as Record<string, unknown> | undefined)?.token;
      peer = access.identify(req.headers.authorization, typeof q === 'string' ? q : undefined, req.ip);
      req.vilsPeer = peer;
      access.require(peer, access.requiredRole(method, path), `${method} ${path.slice(0, 100)}`);
    } catch (err) {
      if (!(err instanceof AccessError)) throw err;
      if (err.statusCode === 401) access.refused.unauthenticated++;
      else access.refused.forbidden++;
      if (err.statusCode === 401) reply.header('www-authenticate', 'Bearer');
      return refuse(req, reply, err.statusCode, err.message, req.vilsPeer?.label ?? req.ip);
    }
  });

  const limits = access.settings.limits;
  await app.register(rateLimit, {
    global: true,
    timeWindow: 1000,
    keyGenerator: (req) => `${req.vilsPeer?.key ?? req.ip}|${SAFE.has(req.method) ? 'read' : 'command'}`,
    max: (_req, key) => (key.endsWith('|read') ? limits.rest_reads_per_s : limits.rest_commands_per_s),
    onExceeded: (req) => {
      access.refused.rate_limited_rest++;
      const who = req.vilsPeer?.label ?? req.ip;
      const k = `${who} 429`;
      const now = Date.now();
      if ((lastLogged.get(k) ?? 0) + LOG_EVERY_MS <= now) {
        lastLogged.set(k, now);
        log.warn({ client: who, method: req.method, url: redactToken(req.url), status: 429 }, `rate limit: refusing requests from ${who} (at most ${limits.rest_reads_per_s} reads and ${limits.rest_commands_per_s} commands a second)`);
      }
    },
    errorResponseBuilder: (req, ctx) => ({
      statusCode: 429, error: 'Too Many Requests',
      message: `rate limit: at most ${ctx.max} ${SAFE.has(req.method) ? 'reads' : 'commands'} a second from one client; retry in ${ctx.after}`,
    }),
  });

  app.addHook('onListen', async () => {
    const addresses = listeningOn(app);
    if (access.open && addresses.some((a) => !isLoopback(a))) {
      const { listening, risk, fix } = openWarningParts(addresses);
      const line = '!'.repeat(100);
      if (format === 'pretty') log.warn({ addresses }, `\n${line}\n${openWarning(addresses)}\n${line}`);
      else log.warn({ warning: 'no_access_control', addresses: listening, risk, fix }, openWarning(addresses));
    }
  });
}

/** A URL with its token query parameter hidden (for logs). */
export function redactToken(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1<hidden>');
}
