/**
 * Whether an ego_state message from a stream client is taken, as a pure function of the message and what the
 * server knows (the sender's rights): no socket, no clock read, no state. Where a stamped fix belongs in time is
 * the ego's FixClock's decision (ego-clocks.ts), and what a client is told of its clock is clockNotice's. The
 * stream plugin (plugins/stream.ts) is the thin adapter: it reads the clock, sends the replies, and claims the
 * ego id.
 */
import { Ajv } from 'ajv';
import { egoStateSchema } from './schemas.js';
import type { EgoFixTiming } from '../scene/index.js';
import type { GnssEgo } from './wire.js';

/** a client whose clock differs from the server's (after clock_offset_s) by more than this is told once [s] */
export const CLOCK_WARN_S = 1;

const validateEgo = new Ajv({ allErrors: false, strict: false }).compile(egoStateSchema);

/** The first schema error of a message, as a client reads it. */
export function describeSchemaErrors(errors: typeof validateEgo.errors): string {
  const e = errors?.[0];
  if (!e) return 'invalid message';
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'message';
  if (e.keyword === 'additionalProperties') return `${where}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  if (e.keyword === 'required') return `${where}: missing field "${(e.params as { missingProperty: string }).missingProperty}"`;
  return `${where} ${e.message}`;
}

export interface EgoAdmissionContext {
  /** the sender as messages name it (its token's name), and its role */
  sender: string;
  role: string | null;
  /** the sender's role may send egos */
  mayDrive: boolean;
  /** the sender's token is granted this ego id */
  mayDriveEgo(egoId: string): boolean;
}

/** Said once per connection whose clock is off the server's by more than CLOCK_WARN_S. */
export interface ClockNotice {
  /** the client's clock minus the server's and clock_offset_s [s] */
  offsetS: number;
  /** "3.20 s behind" / "ahead of" */
  off: string;
  /** the sentence the client is sent */
  text: string;
}

export type EgoAdmission =
  | { ok: false; error: string }
  | { ok: true; egoId: string; data: GnssEgo; timestamp?: number };

/**
 * What a client is told (once) of its clock, from where its fix was placed: nothing while its clock agrees with
 * the server's (after clock_offset_s) to CLOCK_WARN_S; else by how much, and — when the offset comes from the
 * fixes alone — that its least latency cannot be seen and how to make it measurable.
 */
export function clockNotice(timing: EgoFixTiming, clockOffsetS: number): ClockNotice | null {
  const offsetS = timing.offsetS - clockOffsetS;
  if (timing.source === 'none' || timing.source === 'synced' || Math.abs(offsetS) <= CLOCK_WARN_S) return null;
  const off = `${Math.abs(offsetS).toFixed(Math.abs(offsetS) > 100 ? 0 : 2)} s ${offsetS < 0 ? 'behind' : 'ahead of'}`;
  const how = timing.source === 'probe'
    ? 'measured from your answers to clock_probe; your fixes are placed by it'
    : 'estimated from your fixes alone, so their least latency counts as 0 (it cannot be seen one way): answer clock_probe messages (docs/car-in-the-loop.md) to have it measured, or synchronise the clocks (NTP, PTP)';
  return { offsetS, off, text: `clock: your timestamps are ${off} the server's clock (clock_offset_s ${clockOffsetS}), ${how}. Said once.` };
}

export function admitEgoState(msg: unknown, ctx: EgoAdmissionContext): EgoAdmission {
  if (!validateEgo(msg)) return { ok: false, error: `ego_state: ${describeSchemaErrors(validateEgo.errors)}` };
  const m = msg as { timestamp?: number; ego_id?: string; data: GnssEgo };
  const egoId = m.ego_id ?? 'ego';
  if (!ctx.mayDrive) return { ok: false, error: `ego_state: ${ctx.sender} may only watch (${ctx.role ?? 'no'} role): sending egos needs a driver token` };
  if (!ctx.mayDriveEgo(egoId)) return { ok: false, error: `ego_state: ${ctx.sender} may not drive ego "${egoId.slice(0, 64)}"` };
  if (m.timestamp === undefined) return { ok: true, egoId, data: m.data };
  if (!Number.isFinite(m.timestamp)) return { ok: false, error: 'ego_state: timestamp must be a finite number of seconds since the Unix epoch' };
  return { ok: true, egoId, data: m.data, timestamp: m.timestamp };
}
