/**
 * The external-asset protocol, version 1: how a simulator in another process joins the time conductor.
 *
 * Transport: UDP, one JSON object (UTF-8) per datagram, at most MAX_DATAGRAM bytes. Why UDP and not WebSocket:
 *   - every message is state, not a delta: a report carries the asset's absolute time and a `tc` message the
 *     absolute core time, so a lost or reordered datagram is simply superseded by the next one. Nothing needs
 *     TCP's retransmission, and TCP's head-of-line blocking would hurt: one lost segment holds every later
 *     report for a retransmission timeout (200 ms minimum on Linux), longer than a typical dmax (10–100 ms);
 *   - the server pushes Tc to every asset on every change; over UDP that is one small datagram each, with no
 *     per-connection buffering that can back up behind a slow asset;
 *   - a stdlib-only client is a dozen lines in any language (Python's socket + json); a WebSocket client needs
 *     the HTTP upgrade and the framing, which Python's standard library does not have;
 *   - losing an asset is detected by a timeout either way (a crashed host or a pulled cable closes no TCP
 *     connection), so a connection buys nothing there.
 * What UDP costs, and how it is handled: no delivery guarantee (idempotent state messages plus a heartbeat:
 * an asset waiting for Tc re-sends its report every `heartbeat_ms`, and each report is answered with Tc), no
 * authentication (bind to loopback or a trusted vehicle network; a name is bound to the address that registered
 * it, and datagrams for it from another address are dropped), 508 bytes is plenty for these messages.
 *
 * Times are integer microseconds since the start of the session (Tc = 0), the conductor's unit. Clocks of
 * different machines are not synchronised by this protocol (see docs/time-sync.md).
 *
 * Asset → server
 *   {"v":1,"type":"register","name":"plant-1","step_us":10000,"kind":"simulated"}   kind optional (simulated)
 *   {"v":1,"type":"report","name":"plant-1","t_us":120000,"held":3}                  held optional: own retained count
 *   {"v":1,"type":"leave","name":"plant-1"}
 * Server → asset
 *   {"v":1,"type":"registered","name":..,"t_us":<start time>,"tc_us":..,"step_us":..,"core_step_us":..,
 *    "dmax_us":..,"mode":"afap"|"lockstep"|"realtime","timeout_ms":..,"heartbeat_ms":..}
 *   {"v":1,"type":"tc","tc_us":..,"t_us":<the asset's time as the conductor holds it>,"seq":n[,"refused":reason]}
 *       the answer to every report, and pushed to every asset whenever Tc changes; seq grows by one per message
 *       the server sends, so an asset ignores a tc older than the last it saw
 *   {"v":1,"type":"left","name":..}                       the answer to leave
 *   {"v":1,"type":"removed","name":..,"reason":"timeout"}   sent once when the server drops a silent asset
 *   {"v":1,"type":"error","reason":..,"detail":..}        a refused register, or a report/leave for an unknown name
 *
 * The asset's loop: T' = T + step; if T' ≤ Tc, run the step and report T'; otherwise wait for a tc message, and
 * if none comes within heartbeat_ms, re-send the last report. On "removed" or error "not_registered",
 * register again (it rejoins at the current Tc). A datagram that does not decode is dropped and counted with
 * its reason (DropReason), never answered.
 */

import type { AssetKind, ConductorMode } from './conductor.js';
import { isValidAssetName } from './conductor.js';

export const PROTOCOL_VERSION = 1;
/** Largest datagram accepted (bytes). */
export const MAX_DATAGRAM = 508;
export const DEFAULT_ASSET_PORT = 47800;

export type ClientMessage =
  | { readonly type: 'register'; readonly name: string; readonly stepUs: number; readonly kind: AssetKind }
  | { readonly type: 'report'; readonly name: string; readonly timeUs: number; readonly held?: number }
  | { readonly type: 'leave'; readonly name: string };

export type ServerMessage =
  | {
      readonly type: 'registered';
      readonly name: string;
      readonly timeUs: number;
      readonly tcUs: number;
      readonly stepUs: number;
      readonly coreStepUs: number;
      readonly dmaxUs: number;
      readonly mode: ConductorMode;
      readonly timeoutMs: number;
      readonly heartbeatMs: number;
    }
  | { readonly type: 'tc'; readonly tcUs: number; readonly timeUs: number; readonly seq: number; readonly refused?: string }
  | { readonly type: 'left'; readonly name: string }
  | { readonly type: 'removed'; readonly name: string; readonly reason: string }
  | { readonly type: 'error'; readonly reason: string; readonly detail: string };

export type DropReason =
  | 'too_large'
  | 'not_json'
  | 'not_object'
  | 'bad_version'
  | 'unknown_type'
  | 'bad_name'
  | 'bad_step'
  | 'bad_kind'
  | 'bad_time'
  | 'bad_held'
  | 'bad_field';

export type Decoded<T> = { readonly ok: true; readonly msg: T } | { readonly ok: false; readonly reason: DropReason };

function isUint(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function parseObject(buf: Uint8Array): Decoded<Record<string, unknown>> {
  if (buf.byteLength > MAX_DATAGRAM) return { ok: false, reason: 'too_large' };
  let o: unknown;
  try {
    o = JSON.parse(Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('utf8'));
  } catch {
    return { ok: false, reason: 'not_json' };
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return { ok: false, reason: 'not_object' };
  const r = o as Record<string, unknown>;
  if (r.v !== PROTOCOL_VERSION) return { ok: false, reason: 'bad_version' };
  return { ok: true, msg: r };
}

/** Decodes an asset's datagram; never throws. */
export function decodeClientMessage(buf: Uint8Array): Decoded<ClientMessage> {
  const p = parseObject(buf);
  if (!p.ok) return p;
  const o = p.msg;
  if (o.type !== 'register' && o.type !== 'report' && o.type !== 'leave') return { ok: false, reason: 'unknown_type' };
  if (!isValidAssetName(o.name)) return { ok: false, reason: 'bad_name' };
  const name = o.name;
  switch (o.type) {
    case 'register': {
      if (!isUint(o.step_us) || o.step_us === 0) return { ok: false, reason: 'bad_step' };
      const kind = o.kind ?? 'simulated';
      if (kind !== 'simulated' && kind !== 'wallclock') return { ok: false, reason: 'bad_kind' };
      return { ok: true, msg: { type: 'register', name, stepUs: o.step_us, kind } };
    }
    case 'report': {
      if (!isUint(o.t_us)) return { ok: false, reason: 'bad_time' };
      if (o.held !== undefined && !isUint(o.held)) return { ok: false, reason: 'bad_held' };
      return { ok: true, msg: o.held === undefined ? { type: 'report', name, timeUs: o.t_us } : { type: 'report', name, timeUs: o.t_us, held: o.held } };
    }
    default:
      return { ok: true, msg: { type: 'leave', name } };
  }
}

export function encodeClientMessage(m: ClientMessage): Buffer {
  switch (m.type) {
    case 'register':
      return json({ v: PROTOCOL_VERSION, type: 'register', name: m.name, step_us: m.stepUs, kind: m.kind });
    case 'report':
      return json({ v: PROTOCOL_VERSION, type: 'report', name: m.name, t_us: m.timeUs, ...(m.held === undefined ? {} : { held: m.held }) });
    case 'leave':
      return json({ v: PROTOCOL_VERSION, type: 'leave', name: m.name });
  }
}

export function encodeServerMessage(m: ServerMessage): Buffer {
  switch (m.type) {
    case 'registered':
      return json({
        v: PROTOCOL_VERSION, type: 'registered', name: m.name, t_us: m.timeUs, tc_us: m.tcUs, step_us: m.stepUs, core_step_us: m.coreStepUs,
        dmax_us: m.dmaxUs, mode: m.mode, timeout_ms: m.timeoutMs, heartbeat_ms: m.heartbeatMs,
      });
    case 'tc':
      return json({ v: PROTOCOL_VERSION, type: 'tc', tc_us: m.tcUs, t_us: m.timeUs, seq: m.seq, ...(m.refused ? { refused: m.refused } : {}) });
    case 'left':
      return json({ v: PROTOCOL_VERSION, type: 'left', name: m.name });
    case 'removed':
      return json({ v: PROTOCOL_VERSION, type: 'removed', name: m.name, reason: m.reason });
    case 'error':
      return json({ v: PROTOCOL_VERSION, type: 'error', reason: m.reason, detail: m.detail });
  }
}

/** Decodes a server datagram (for Node assets and tests); never throws. */
export function decodeServerMessage(buf: Uint8Array): Decoded<ServerMessage> {
  const p = parseObject(buf);
  if (!p.ok) return p;
  const o = p.msg;
  const str = (v: unknown): v is string => typeof v === 'string';
  switch (o.type) {
    case 'registered':
      if (!isValidAssetName(o.name)) return { ok: false, reason: 'bad_name' };
      if (![o.t_us, o.tc_us, o.step_us, o.core_step_us, o.dmax_us, o.timeout_ms, o.heartbeat_ms].every(isUint) || !str(o.mode)) return { ok: false, reason: 'bad_field' };
      return {
        ok: true,
        msg: {
          type: 'registered', name: o.name, timeUs: o.t_us as number, tcUs: o.tc_us as number, stepUs: o.step_us as number, coreStepUs: o.core_step_us as number,
          dmaxUs: o.dmax_us as number, mode: o.mode as ConductorMode, timeoutMs: o.timeout_ms as number, heartbeatMs: o.heartbeat_ms as number,
        },
      };
    case 'tc':
      if (!isUint(o.tc_us) || !isUint(o.seq) || !(isUint(o.t_us) || o.t_us === null)) return { ok: false, reason: 'bad_time' };
      return { ok: true, msg: { type: 'tc', tcUs: o.tc_us, timeUs: (o.t_us as number | null) ?? NaN, seq: o.seq, ...(str(o.refused) ? { refused: o.refused } : {}) } };
    case 'left':
    case 'removed':
      if (!isValidAssetName(o.name)) return { ok: false, reason: 'bad_name' };
      return { ok: true, msg: o.type === 'left' ? { type: 'left', name: o.name } : { type: 'removed', name: o.name, reason: str(o.reason) ? o.reason : '' } };
    case 'error':
      return { ok: true, msg: { type: 'error', reason: str(o.reason) ? o.reason : '', detail: str(o.detail) ? o.detail : '' } };
    default:
      return { ok: false, reason: 'unknown_type' };
  }
}

function json(o: unknown): Buffer {
  return Buffer.from(JSON.stringify(o), 'utf8');
}
