/**
 * Whether an ego_state message from a stream client is taken, as a pure function of the message and what the
 * server knows (the sender's rights, its clock, the settings): no socket, no clock read, no state. The stream
 * plugin (plugins/stream.ts) is the thin adapter: it reads the clock, sends the replies, and claims the ego id.
 */
import { Ajv } from 'ajv';
import { egoStateSchema } from './schemas.js';
import type { GnssEgo } from './wire.js';

/** a client whose timestamps differ from the server clock (after clock_offset_s) by more than this is told once [s] */
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
  /** the server's clock [s since the Unix epoch] */
  epochNowS: number;
  clockOffsetS: number;
  egoTimeoutS: number;
  /** this connection was already told that its clock is off */
  clockTold: boolean;
}

/** Said once per connection whose timestamps are off the server clock by more than CLOCK_WARN_S. */
export interface ClockNotice {
  /** the client's clock minus the server's (after clock_offset_s) [s] */
  offsetS: number;
  /** "3.20 s behind" / "ahead of" */
  off: string;
}

export type EgoAdmission =
  | { ok: false; error: string; clockNotice?: ClockNotice }
  | { ok: true; egoId: string; data: GnssEgo; timestamp?: number; clockNotice?: ClockNotice };

export function admitEgoState(msg: unknown, ctx: EgoAdmissionContext): EgoAdmission {
  if (!validateEgo(msg)) return { ok: false, error: `ego_state: ${describeSchemaErrors(validateEgo.errors)}` };
  const m = msg as { timestamp?: number; ego_id?: string; data: GnssEgo };
  const egoId = m.ego_id ?? 'ego';
  if (!ctx.mayDrive) return { ok: false, error: `ego_state: ${ctx.sender} may only watch (${ctx.role ?? 'no'} role): sending egos needs a driver token` };
  if (!ctx.mayDriveEgo(egoId)) return { ok: false, error: `ego_state: ${ctx.sender} may not drive ego "${egoId.slice(0, 64)}"` };
  if (m.timestamp === undefined) return { ok: true, egoId, data: m.data };
  if (!Number.isFinite(m.timestamp)) return { ok: false, error: 'ego_state: timestamp must be a finite number of seconds since the Unix epoch' };
  // judged on the server's clock: how old the fix is, allowing the configured offset of the client clocks
  const age = ctx.epochNowS + ctx.clockOffsetS - m.timestamp;
  const clockNotice = !ctx.clockTold && Math.abs(age) > CLOCK_WARN_S ? { offsetS: -age, off: `${Math.abs(age).toFixed(age > 100 ? 0 : 2)} s ${age > 0 ? 'behind' : 'ahead of'}` } : undefined;
  if (age > ctx.egoTimeoutS) {
    return { ok: false, clockNotice, error: `ego_state: stale fix: its timestamp is ${age.toFixed(age > 100 ? 0 : 2)} s old on the server clock (more than ego_timeout_s ${ctx.egoTimeoutS}); not used` };
  }
  return { ok: true, egoId, data: m.data, timestamp: m.timestamp, clockNotice };
}
