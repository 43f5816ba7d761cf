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
 * Settings come from a JSON file (`vils serve --access <file>` or VILS_ACCESS_FILE) and the environment
 * (VILS_OPERATOR_TOKENS, VILS_DRIVER_TOKENS, VILS_VIEWER_TOKENS, VILS_ALLOWED_ORIGINS, VILS_ALLOWED_HOSTS:
 * comma-separated lists, added to the file's).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { InputError } from '../scene/index.js';
import { TokenBucket } from './rate.js';

export type Role = 'viewer' | 'driver' | 'operator';
export const ROLES: readonly Role[] = ['viewer', 'driver', 'operator'];
const RANK: Record<Role, number> = { viewer: 1, driver: 2, operator: 3 };

export interface TokenSettings {
  token: string;
  role: Role;
  /** shown in logs and errors instead of the token (default: "<role> #<n>") */
  name?: string;
  /** drivers: the ego ids this token may drive ("*" or absent: any id no other client owns) */
  egos?: '*' | string[];
}

/** A token bucket: a steady rate and a burst. */
export interface RateSettings {
  messages_per_s: number;
  messages_burst: number;
  bytes_per_s: number;
  bytes_burst: number;
}

export interface LimitSettings {
  /** REST reads (GET) per second per client (token, else address) */
  rest_reads_per_s: number;
  /** REST commands (POST, PUT, DELETE) per second per client */
  rest_commands_per_s: number;
  /** WebSocket input of one connection */
  ws_connection: RateSettings;
  /** WebSocket input of all the connections of one client (token, else address) together */
  ws_client: RateSettings;
  /**
   * the server-wide parse budget: WebSocket input of all connections of all clients together, beyond each
   * connection's `ws_reserved` share. Many addresses each under the per-connection and per-client limits could
   * otherwise slow the loop (16 addresses × 8 connections × 450 valid messages/s: 9.49 Hz, a car 7.5 frames/s)
   */
  ws_server: RateSettings;
  /**
   * what each connection may always have parsed, before it draws on `ws_server` (a car's ego_state at 10 Hz,
   * a viewer's pings): a flood that spends the budget never starves a well-behaved client. At most
   * max_connections × this + ws_server are parsed a second.
   */
  ws_reserved: RateSettings;
  /** a connection that has this many messages dropped within one second is closed with 1008 */
  ws_close_after_dropped: number;
  /** open WebSocket connections per client */
  max_connections_per_client: number;
  /**
   * open stream connections of all clients and scenes together: each costs a frame per tick, so many addresses
   * each under max_connections_per_client could otherwise drag the loop down (2,000 from 40 addresses: 7.9 Hz)
   */
  max_connections: number;
  /** a client one of whose connections was closed for flooding may not open another for this long [s] */
  ws_flood_ban_s: number;
}

export interface AccessSettings {
  tokens: TokenSettings[];
  /** browser origins (scheme://host[:port]) allowed besides the server's own pages; "*" allows any */
  allowed_origins: string[];
  /** host names a request may address besides IP literals, localhost and this machine's name; "*" allows any */
  allowed_hosts: string[];
  limits: LimitSettings;
}

export const DEFAULT_LIMITS: Readonly<LimitSettings> = {
  rest_reads_per_s: 100,
  rest_commands_per_s: 50,
  ws_connection: { messages_per_s: 500, messages_burst: 500, bytes_per_s: 1_000_000, bytes_burst: 1_000_000 },
  ws_client: { messages_per_s: 4000, messages_burst: 4000, bytes_per_s: 8_000_000, bytes_burst: 8_000_000 },
  ws_server: { messages_per_s: 4000, messages_burst: 4000, bytes_per_s: 4_000_000, bytes_burst: 4_000_000 },
  ws_reserved: { messages_per_s: 20, messages_burst: 20, bytes_per_s: 20_000, bytes_burst: 20_000 },
  ws_close_after_dropped: 500,
  max_connections_per_client: 64,
  max_connections: 400,
  ws_flood_ban_s: 10,
};

export const DEFAULT_ACCESS: Readonly<AccessSettings> = { tokens: [], allowed_origins: [], allowed_hosts: [], limits: DEFAULT_LIMITS };

const MIN_TOKEN_LENGTH = 12;
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

function list(env: string | undefined): string[] {
  return (env ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function positive(v: unknown, where: string): number {
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new InputError(`${where} must be a positive number, got ${JSON.stringify(v)}`);
  return v;
}

function rate(base: RateSettings, v: unknown, where: string): RateSettings {
  if (v === undefined) return { ...base };
  if (typeof v !== 'object' || v === null) throw new InputError(`${where} must be an object`);
  const out = { ...base };
  for (const [k, x] of Object.entries(v)) {
    if (!(k in base)) throw new InputError(`${where}: unknown key "${k}"`);
    out[k as keyof RateSettings] = positive(x, `${where}.${k}`);
  }
  // a bucket that holds less than one message lets none through
  if (out.messages_burst < 1) throw new InputError(`${where}.messages_burst must be at least 1 (a burst below one message lets none through), got ${out.messages_burst}`);
  return out;
}

/**
 * Settings from a parsed access file (or a partial object) and the environment, checked: unknown keys,
 * bad roles, short or repeated tokens are errors naming the key.
 */
export function accessSettings(file: unknown = {}, env: NodeJS.ProcessEnv = process.env, where = 'access settings'): AccessSettings {
  if (typeof file !== 'object' || file === null || Array.isArray(file)) throw new InputError(`${where}: expected a JSON object`);
  const f = file as Record<string, unknown>;
  for (const k of Object.keys(f)) if (!['tokens', 'allowed_origins', 'allowed_hosts', 'limits'].includes(k)) throw new InputError(`${where}: unknown key "${k}"`);
  const tokens: TokenSettings[] = [];
  const fileTokens = f.tokens ?? [];
  if (!Array.isArray(fileTokens)) throw new InputError(`${where}: tokens must be a list`);
  for (const [i, t] of fileTokens.entries()) {
    const at = `${where}: tokens[${i}]`;
    if (typeof t !== 'object' || t === null) throw new InputError(`${at} must be an object {token, role, name?, egos?}`);
    const { token, role, name, egos, ...rest } = t as Record<string, unknown>;
    if (Object.keys(rest).length) throw new InputError(`${at}: unknown key "${Object.keys(rest)[0]}"`);
    if (typeof role !== 'string' || !ROLES.includes(role as Role)) throw new InputError(`${at}.role must be one of ${ROLES.join(', ')}`);
    if (typeof token !== 'string') throw new InputError(`${at}.token must be a string`);
    if (name !== undefined && typeof name !== 'string') throw new InputError(`${at}.name must be a string`);
    if (egos !== undefined && egos !== '*' && !(Array.isArray(egos) && egos.every((e) => typeof e === 'string' && e.length > 0))) throw new InputError(`${at}.egos must be "*" or a list of ego ids`);
    tokens.push({ token, role: role as Role, name: name as string | undefined, egos: egos as TokenSettings['egos'] });
  }
  for (const role of ROLES) for (const token of list(env[`VILS_${role.toUpperCase()}_TOKENS`])) tokens.push({ token, role });
  const seen = new Set<string>();
  for (const [i, t] of tokens.entries()) {
    if (t.token.length < MIN_TOKEN_LENGTH) throw new InputError(`${where}: token ${t.name ?? `#${i + 1} (${t.role})`} is shorter than ${MIN_TOKEN_LENGTH} characters: use a random one (openssl rand -hex 16)`);
    if (/\s|,/.test(t.token)) throw new InputError(`${where}: token ${t.name ?? `#${i + 1} (${t.role})`} contains a space or a comma`);
    if (seen.has(t.token)) throw new InputError(`${where}: a token is given twice`);
    seen.add(t.token);
  }
  const strings = (v: unknown, key: string): string[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new InputError(`${where}: ${key} must be a list of strings`);
    return v as string[];
  };
  const origins = [...strings(f.allowed_origins, 'allowed_origins'), ...list(env.VILS_ALLOWED_ORIGINS)].map((o) => {
    if (o === '*') return o;
    try {
      const u = new URL(o);
      if (u.origin === 'null' || u.pathname !== '/' || u.search || u.hash) throw new Error();
      return u.origin;
    } catch {
      throw new InputError(`${where}: allowed origin "${o}" is not an origin (scheme://host[:port])`);
    }
  });
  const hosts = [...strings(f.allowed_hosts, 'allowed_hosts'), ...list(env.VILS_ALLOWED_HOSTS)].map((h) => h.toLowerCase());
  const limits: LimitSettings = { ...DEFAULT_LIMITS };
  if (f.limits !== undefined) {
    if (typeof f.limits !== 'object' || f.limits === null) throw new InputError(`${where}: limits must be an object`);
    for (const [k, v] of Object.entries(f.limits)) {
      if (k === 'ws_connection' || k === 'ws_client' || k === 'ws_server' || k === 'ws_reserved') limits[k] = rate(DEFAULT_LIMITS[k], v, `${where}: limits.${k}`);
      else if (k in DEFAULT_LIMITS) (limits as unknown as Record<string, number>)[k] = positive(v, `${where}: limits.${k}`);
      else throw new InputError(`${where}: limits: unknown key "${k}"`);
    }
  }
  return { tokens, allowed_origins: origins, allowed_hosts: hosts, limits };
}

/** Reads an access file (JSON) and merges the environment. */
export function loadAccessFile(path: string | undefined, env: NodeJS.ProcessEnv = process.env): AccessSettings {
  if (!path) return accessSettings({}, env);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new InputError(`access file ${path}: ${(err as Error).message}`);
  }
  return accessSettings(data, env, `access file ${path}`);
}

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
  readonly refused = { unauthenticated: 0, forbidden: 0, host: 0, origin: 0, rate_limited_rest: 0, rate_limited_ws: 0, closed_1008: 0, shut_out: 0, server_full: 0, over_server_budget: 0 };
  /** WebSocket input messages let through to be parsed, every connection together: from the connections' reserves, from the server-wide budget */
  readonly wsInput = { from_reserve: 0, from_budget: 0 };
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

export function openWarning(addresses: readonly string[]): string {
  return `NO ACCESS CONTROL: listening on ${addresses.join(', ')} with no token configured, so anyone who can reach this port can move the egos, reset or pause the session and change its settings. Set tokens (VILS_OPERATOR_TOKENS, VILS_DRIVER_TOKENS, VILS_VIEWER_TOKENS or vils serve --access <file>) or listen on 127.0.0.1 (--host 127.0.0.1).`;
}

/** ok: parse it; drop: over the connection's or the client's limit; close: that, and flooding (1008); busy: over the server-wide budget */
export type Admit = 'ok' | 'drop' | 'close' | 'busy';

/**
 * The input limits of one WebSocket connection, checked before a message is parsed. First its own bucket
 * and its client's shared one: over either, a message is dropped and counted (`rate_limited_ws`), and a
 * connection with `ws_close_after_dropped` such drops within a second is to be closed (1008). Then the
 * server-wide parse budget: a message is taken from the connection's reserve (`ws_reserved`) while that
 * has room, else from the budget every connection shares (`ws_server`); with neither it is dropped and
 * counted (`over_server_budget`), and the connection stays (the server is busy, not this client at fault);
 * such a message still counts against the connection's and the client's limits (they bound what is sent,
 * parsed or not), so a flood is closed all the same. A message dropped over those limits takes nothing.
 */
export class InputLimiter {
  private readonly own: TokenBucket;
  private readonly reserve: TokenBucket;
  /** messages dropped over this connection's or its client's limit */
  dropped = 0;
  /** messages dropped over the server-wide budget */
  busy = 0;
  private windowStart = 0;
  private windowDrops = 0;
  private released = false;

  constructor(
    private readonly limits: LimitSettings, private readonly client: TokenBucket, private readonly onRelease: () => void,
    private readonly refused: AccessControl['refused'], private readonly onFlood: () => void = () => {},
    /** the server-wide budget (none: only the connection's and the client's limits apply) */
    private readonly budget: TokenBucket | null = null,
    private readonly counts: AccessControl['wsInput'] = { from_reserve: 0, from_budget: 0 },
  ) {
    const l = limits.ws_connection;
    this.own = new TokenBucket(l.messages_per_s, l.messages_burst, l.bytes_per_s, l.bytes_burst);
    const r = limits.ws_reserved;
    this.reserve = new TokenBucket(r.messages_per_s, r.messages_burst, r.bytes_per_s, r.bytes_burst);
  }

  /** One message of `bytes` bytes arriving at `nowS` (seconds, monotonic). */
  admit(bytes: number, nowS = performance.now() / 1000): Admit {
    if (this.own.fits(bytes, nowS) && this.client.fits(bytes, nowS)) {
      // what a connection sends counts against its own and its client's limits, parsed or not: a flood stays
      // a flood (dropped, closed 1008) while the server's budget is spent
      this.own.consume(bytes);
      this.client.consume(bytes);
      if (this.reserve.fits(bytes, nowS)) {
        this.reserve.consume(bytes);
        this.counts.from_reserve++;
      } else if (this.budget === null || this.budget.fits(bytes, nowS)) {
        this.budget?.consume(bytes);
        this.counts.from_budget++;
      } else {
        this.busy++;
        this.refused.over_server_budget++;
        return 'busy';
      }
      return 'ok';
    }
    this.dropped++;
    this.refused.rate_limited_ws++;
    if (nowS - this.windowStart >= 1) {
      this.windowStart = nowS;
      this.windowDrops = 0;
    }
    if (++this.windowDrops < this.limits.ws_close_after_dropped) return 'drop';
    this.onFlood();
    return 'close';
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease();
  }
}

/**
 * Which client owns each ego id of a scene: the token that first drove it, else the connection (and, once
 * that connection has closed, any connection from the same address, so a car that reconnects gets its ego
 * back). An id is free again when the scene forgets the ego (timeout, reset, DELETE /api/egos/:id).
 */
export class EgoOwners {
  private readonly owners = new Map<string, { token: string | null; connection: number; address: string }>();

  /**
   * Claims `egoId` for a peer on a connection: `refused` says who owns it, `fresh` that it was free. An ego
   * the scene has (`exists`) that no client owns is the server's own (a simulated ego): never a client's.
   */
  claim(egoId: string, peer: Peer, connection: number, exists = false): { refused: string | null; fresh: boolean } {
    const o = this.owners.get(egoId);
    if (!o && exists) return { refused: `ego "${egoId}" is driven by the server itself (a simulated ego)`, fresh: false };
    if (!o) {
      this.owners.set(egoId, { token: peer.token?.name ?? null, connection, address: peer.address });
      return { refused: null, fresh: true };
    }
    if (o.token !== null) {
      if (peer.token?.name === o.token) {
        o.connection = connection;
        return { refused: null, fresh: false };
      }
      return { refused: `ego "${egoId}" belongs to another client (${o.token})`, fresh: false };
    }
    if (o.connection === connection) return { refused: null, fresh: false };
    if (o.connection === 0 && o.address === peer.address && peer.token === null) {
      o.connection = connection;
      return { refused: null, fresh: false };
    }
    return { refused: `ego "${egoId}" belongs to another connection${o.connection === 0 ? ` (from ${o.address}, closed; free again when the ego is forgotten)` : ''}`, fresh: false };
  }

  /** A connection closed: its egos stay owned by its address (or token) until they are forgotten. */
  disconnected(connection: number): void {
    for (const o of this.owners.values()) if (o.connection === connection) o.connection = 0;
  }

  forget(egoId: string): void {
    this.owners.delete(egoId);
  }

  owner(egoId: string): string | null {
    const o = this.owners.get(egoId);
    return o ? (o.token ?? `connection ${o.connection || 'closed'} from ${o.address}`) : null;
  }
}
