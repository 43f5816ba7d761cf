/**
 * The input limits of one WebSocket connection, checked for every message before it is parsed. A room of its
 * own because it runs per message on the stream's hot path, apart from the per-connection decisions of the
 * access control (access.ts) that hands one out at connect.
 */
import type { LimitSettings } from './access-settings.js';
import { TokenBucket } from './rate.js';

/** Refusals by reason, as the access control counts them (shown in the status). */
export interface RefusalCounts {
  unauthenticated: number;
  forbidden: number;
  host: number;
  origin: number;
  rate_limited_rest: number;
  rate_limited_ws: number;
  closed_1008: number;
  shut_out: number;
  server_full: number;
  over_server_budget: number;
}

/** WebSocket input messages let through to be parsed: from the connections' reserves, from the server-wide budget. */
export interface WsInputCounts {
  from_reserve: number;
  from_budget: number;
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
    private readonly refused: Pick<RefusalCounts, 'rate_limited_ws' | 'over_server_budget'>, private readonly onFlood: () => void = () => {},
    /** the server-wide budget (none: only the connection's and the client's limits apply) */
    private readonly budget: TokenBucket | null = null,
    private readonly counts: WsInputCounts = { from_reserve: 0, from_budget: 0 },
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
