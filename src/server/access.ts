/**
 * Who may do what on a VILS server, and how much of it: tokens with roles, ego ownership, the Host, Origin
 * and CORS rules, and the limits of the WebSocket input: per connection, per client, and the server-wide
 * parse budget (with a small reserve per connection that the budget never takes away). Pure logic (no
 * fastify): plugins/access.ts applies it to requests, plugins/stream.ts to WebSocket messages.
 *
 * Roles are ranked: a *viewer* reads the stream and the status, a *driver* also sends ego_state for the ego
 * ids its token is granted, an *operator* also controls the session (REST commands, spawns, settings).
 * With no token configured the server is open: every client is an operator (a closed track LAN is a real
 * use), and the server says so loudly when it listens on more than loopback.
 *
 * The settings are read and checked in access-settings.ts, each connection's input limits are input-limiter.ts
 * and ego ownership is ego-owners.ts; all are exported from here as well.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { DEFAULT_ACCESS, DEFAULT_LIMITS, type AccessSettings, type Role } from './access-settings.js';
import { InputLimiter, type RefusalCounts, type WsInputCounts } from './input-limiter.js';
import { TokenBucket } from './rate.js';

export * from './access-settings.js';
export { InputLimiter, type Admit, type RefusalCounts, type WsInputCounts } from './input-limiter.js';

const RANK: Record<Role, number> = { viewer: 1, driver: 2, operator: 3 };
/** a refusal of the same kind from the same client is logged at most this often [ms] */
const LOG_EVERY_MS = 10_000;

/** Who a request or connection is. */
export interface Peer {
  /** null: no role (a token is needed) */
  role: Role | null;
  /** the client the per-client limits count against: the token's name, else the address */
  key: string;
  /** for logs: the token's name or the address */
  label: string;
  address: string;
  /** set when the peer presented a valid token */
  token: { name: string; egos: '*' | ReadonlySet<string> } | null;
}

export class AccessError extends Error {
  constructor(readonly statusCode: 401 | 403 | 503, message: string) {
    super(message);
    this.name = 'AccessError';
  }
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** The host name of a Host header, without the port; IPv6 literals without brackets. */
export function hostOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') >>> 0);
  const colon = h.lastIndexOf(':');
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

/** Whether an address (an IP, "host:port" or "[v6]:port") is a loopback one. */
export function isLoopback(address: string): boolean {
  const a = address.replace(/^\[([^\]]*)\](:\d+)?$/, '$1').replace(/^([^:]*):\d+$/, '$1').replace(/^::ffff:/, '');
  return a === '::1' || a.startsWith('127.') || a === 'localhost';
}

/** Paths anyone may load (the page, its files, the API description, liveness), after the scene prefix. */
function isPublic(path: string): boolean {
  return path === '/' || path === '' || path === '/index.html' || path.startsWith('/web/') || path === '/api/health' || path === '/docs' || path.startsWith('/docs/');
}

export class AccessControl {
  readonly settings: AccessSettings;
  /** sha256(token) → grant */
  private readonly grants = new Map<string, { name: string; role: Role; egos: '*' | ReadonlySet<string> }>();
  private readonly hosts: Set<string>;
  private readonly anyHost: boolean;
  private readonly anyOrigin: boolean;
  private readonly origins: Set<string>;
  /** per client: its shared input bucket (kept a minute after its last connection, so reconnecting never refills it), its open connections, and until when it is shut out after a flood */
  private readonly clients = new Map<string, { bucket: TokenBucket; connections: number; lastSeen: number; bannedUntil: number }>();
  /** refusals by reason (shown in the status) */
  readonly refused: RefusalCounts = { unauthenticated: 0, forbidden: 0, host: 0, origin: 0, rate_limited_rest: 0, rate_limited_ws: 0, closed_1008: 0, shut_out: 0, server_full: 0, over_server_budget: 0 };
  /** WebSocket input messages let through to be parsed, every connection together: from the connections' reserves, from the server-wide budget */
  readonly wsInput: WsInputCounts = { from_reserve: 0, from_budget: 0 };
  /** stream connections open now, every client and scene together (limits.max_connections) */
  private openConnections = 0;
  /** the server-wide parse budget (limits.ws_server), shared by every connection beyond its reserve */
  private readonly budget: TokenBucket;
  /** when an event was last logged, by key (logNow) */
  private readonly logged = new Map<string, number>();

  constructor(settings: Partial<AccessSettings> = {}) {
    this.settings = { ...DEFAULT_ACCESS, ...settings, limits: { ...DEFAULT_LIMITS, ...settings.limits } };
    const count: Record<Role, number> = { viewer: 0, driver: 0, operator: 0 };
    for (const t of this.settings.tokens) {
      const name = t.name ?? `${t.role} #${++count[t.role]}`;
      this.grants.set(sha(t.token), { name, role: t.role, egos: t.egos === undefined || t.egos === '*' ? '*' : new Set(t.egos) });
    }
    this.anyHost = this.settings.allowed_hosts.includes('*');
    const me = hostname().toLowerCase();
    this.hosts = new Set(['localhost', me, `${me}.local`, ...this.settings.allowed_hosts]);
    this.anyOrigin = this.settings.allowed_origins.includes('*');
    this.origins = new Set(this.settings.allowed_origins);
    const b = this.settings.limits.ws_server;
    this.budget = new TokenBucket(b.messages_per_s, b.messages_burst, b.bytes_per_s, b.bytes_burst);
  }

  /** No token configured: every client is an operator. */
  get open(): boolean {
    return this.grants.size === 0;
  }

  /** Who presents these credentials (Authorization: Bearer, else the `token` query parameter). */
  identify(authorization: string | undefined, queryToken: string | undefined, address: string): Peer {
    let token: string | undefined;
    if (authorization !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!m) throw new AccessError(401, 'Authorization must be "Bearer <token>"');
      token = m[1];
    } else if (queryToken) {
      token = queryToken;
    }
    if (token === undefined) {
      return { role: this.open ? 'operator' : null, key: `address ${address}`, label: address, address, token: null };
    }
    const grant = this.grants.get(sha(token));
    if (!grant) {
      if (this.open) return { role: 'operator', key: `address ${address}`, label: address, address, token: null };
      throw new AccessError(401, 'unknown token');
    }
    return { role: grant.role, key: `token ${grant.name}`, label: `${grant.name} (${address})`, address, token: { name: grant.name, egos: grant.egos } };
  }

  /** The role a request needs: null for the public page, its files, /api/health and /docs. */
  requiredRole(method: string, path: string): Role | null {
    const p = path.replace(/^\/scenes\/[^/]+/, '');
    if ((method === 'GET' || method === 'HEAD') && isPublic(p)) return null;
    return method === 'GET' || method === 'HEAD' ? 'viewer' : 'operator';
  }

  /** Refuses a peer below a role, saying what it needs. */
  require(peer: Peer, role: Role | null, what: string): void {
    if (role === null) return;
    if (peer.role === null) throw new AccessError(401, `${what} needs a ${role} token (Authorization: Bearer <token>, or ?token=<token>)`);
    if (RANK[peer.role] < RANK[role]) throw new AccessError(403, `${what} needs a ${role} token; ${peer.token?.name ?? 'this client'} is a ${peer.role}`);
  }

  may(peer: Peer, role: Role): boolean {
    return peer.role !== null && RANK[peer.role] >= RANK[role];
  }

  /** Whether a driver may drive this ego id at all (ownership is checked separately). */
  mayDrive(peer: Peer, egoId: string): boolean {
    if (!this.may(peer, 'driver')) return false;
    const egos = peer.token?.egos ?? '*';
    return egos === '*' || egos.has(egoId);
  }

  /** A Host header this server answers to (DNS-rebinding defence): IP literals, localhost, this machine, the configured names. */
  hostAllowed(header: string | undefined): boolean {
    if (header === undefined || this.anyHost) return true;
    const h = hostOf(header);
    return isIP(h) !== 0 || this.hosts.has(h) || h.endsWith('.localhost');
  }

  /** A browser Origin allowed to use the API and the stream: the server's own (same Host), or an allowed one. */
  originAllowed(origin: string, hostHeader: string | undefined): boolean {
    if (this.anyOrigin && origin !== 'null') return true;
    if (this.origins.has(origin)) return true;
    try {
      const u = new URL(origin);
      return hostHeader !== undefined && (u.protocol === 'http:' || u.protocol === 'https:') && u.host === hostHeader.toLowerCase();
    } catch {
      return false;
    }
  }

  /** Origins that get CORS headers (the own origin needs none). */
  corsOrigin(origin: string): boolean {
    return origin !== 'null' && (this.anyOrigin || this.origins.has(origin));
  }

  /**
   * The checks of a WebSocket upgrade that does not pass through fastify (the Foxglove port): Host, Origin,
   * and a viewer token. Null to accept, else [HTTP status, reason].
   */
  checkUpgrade(req: { headers: Record<string, string | string[] | undefined>; url?: string; socket: { remoteAddress?: string } }): [number, string] | null {
    const host = req.headers.host as string | undefined;
    if (!this.hostAllowed(host)) {
      this.refused.host++;
      return [403, `this server does not answer to the host name "${String(host).slice(0, 100)}"`];
    }
    const origin = req.headers.origin as string | undefined;
    if (origin !== undefined && !this.originAllowed(origin, host)) {
      this.refused.origin++;
      return [403, `origin ${origin.slice(0, 100)} is not allowed`];
    }
    try {
      const q = new URL(req.url ?? '/', 'http://x').searchParams.get('token') ?? undefined;
      this.require(this.identify(req.headers.authorization as string | undefined, q, req.socket.remoteAddress ?? '?'), 'viewer', 'the Foxglove WebSocket');
    } catch (err) {
      if (!(err instanceof AccessError)) throw err;
      if (err.statusCode === 401) this.refused.unauthenticated++;
      else this.refused.forbidden++;
      return [err.statusCode, err.message];
    }
    return null;
  }

  /** A new WebSocket connection's input limiter, or an error when the client has too many connections open. */
  connect(peer: Peer, nowS = performance.now() / 1000): InputLimiter {
    let c = this.clients.get(peer.key);
    if (!c) {
      if (this.clients.size >= 1000) this.sweep(nowS);
      const l = this.settings.limits.ws_client;
      c = { bucket: new TokenBucket(l.messages_per_s, l.messages_burst, l.bytes_per_s, l.bytes_burst), connections: 0, lastSeen: nowS, bannedUntil: 0 };
      this.clients.set(peer.key, c);
    }
    const wait = this.shutOut(peer, nowS);
    if (wait > 0) throw new AccessError(403, `${peer.label} was closed for flooding: reconnect in ${Math.ceil(wait)} s`);
    if (c.connections >= this.settings.limits.max_connections_per_client) {
      throw new AccessError(403, `too many connections from ${peer.label} (at most ${this.settings.limits.max_connections_per_client})`);
    }
    if (this.openConnections >= this.settings.limits.max_connections) {
      this.refused.server_full++;
      throw new AccessError(503, `the server holds its maximum of ${this.settings.limits.max_connections} stream connections (limits.max_connections): try again later`);
    }
    c.connections++;
    this.openConnections++;
    c.lastSeen = nowS;
    const client = c;
    return new InputLimiter(this.settings.limits, client.bucket, () => {
      client.connections--;
      this.openConnections--;
      client.lastSeen = performance.now() / 1000;
    }, this.refused, () => {
      // closed for flooding: the client may not reconnect for a while (its other connections stay)
      client.bannedUntil = performance.now() / 1000 + this.settings.limits.ws_flood_ban_s;
    }, this.budget, this.wsInput);
  }

  /** Whether to log an event of this key now: at most once in 10 s per key (a flood of refusals is counted, not logged line by line). */
  logNow(key: string, nowMs = Date.now()): boolean {
    const last = this.logged.get(key);
    if (last !== undefined && nowMs - last < LOG_EVERY_MS) return false;
    if (this.logged.size >= 10_000) this.logged.clear();
    this.logged.set(key, nowMs);
    return true;
  }

  /** Seconds a client must still wait after a flood (0: it may connect). */
  shutOut(peer: Pick<Peer, 'key'>, nowS = performance.now() / 1000): number {
    const c = this.clients.get(peer.key);
    return c ? Math.max(0, c.bannedUntil - nowS) : 0;
  }

  private sweep(nowS: number): void {
    for (const [k, c] of this.clients) if (c.connections === 0 && nowS - c.lastSeen > 60 && c.bannedUntil < nowS) this.clients.delete(k);
  }

  /** What /api/status shows; `addresses` are those the server listens on. */
  status(addresses: readonly string[]): Record<string, unknown> {
    const exposed = addresses.some((a) => !isLoopback(a));
    const roles: Record<Role, number> = { viewer: 0, driver: 0, operator: 0 };
    for (const g of this.grants.values()) roles[g.role]++;
    return {
      auth: this.open ? 'open' : 'tokens',
      tokens: roles,
      listening: addresses,
      warning: this.open && exposed ? openWarning(addresses) : null,
      allowed_origins: this.settings.allowed_origins,
      allowed_hosts: this.anyHost ? ['*'] : [...this.hosts],
      limits: this.settings.limits,
      refused: { ...this.refused },
      ws_input: { ...this.wsInput, open_connections: this.openConnections },
    };
  }
}

/** The warning of a server open to all, in parts: a log line keeps them as fields (src/server/plugins/access.ts). */
export function openWarningParts(addresses: readonly string[]): { warning: string; listening: string[]; risk: string; fix: string } {
  return {
    warning: 'NO ACCESS CONTROL',
    listening: [...addresses],
    risk: `listening on ${addresses.join(', ')} with no token configured, so anyone who can reach this port can move the egos, reset or pause the session and change its settings`,
    fix: 'Set tokens (VILS_OPERATOR_TOKENS, VILS_DRIVER_TOKENS, VILS_VIEWER_TOKENS or vils serve --access <file>) or listen on 127.0.0.1 (--host 127.0.0.1).',
  };
}

export function openWarning(addresses: readonly string[]): string {
  const p = openWarningParts(addresses);
  return `${p.warning}: ${p.risk}. ${p.fix}`;
}
