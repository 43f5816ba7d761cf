/**
 * The access settings — tokens and their roles, allowed origins and hosts, the input limits — read from an access
 * file and the environment and checked whole before the server starts: a short or repeated token, an unknown key
 * or a limit that would let nothing through is refused naming the key, never found out by a client.
 *
 * Settings come from a JSON file (`vils serve --access <file>` or VILS_ACCESS_FILE) and the environment
 * (VILS_OPERATOR_TOKENS, VILS_DRIVER_TOKENS, VILS_VIEWER_TOKENS, VILS_ALLOWED_ORIGINS, VILS_ALLOWED_HOSTS:
 * comma-separated lists, added to the file's).
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../scene/index.js';

export type Role = 'viewer' | 'driver' | 'operator';
export const ROLES: readonly Role[] = ['viewer', 'driver', 'operator'];

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
