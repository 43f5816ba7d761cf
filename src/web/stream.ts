/**
 * The page's WebSocket connection to /ws/vils/stream. A viewer, not a car: it never sends anything (so
 * never an ego_state), and reconnects by itself with a growing delay (0.5 s … 5 s), telling the page what
 * it is doing. An open connection that stays silent for 4 s (paused scenes send a frame every second) is
 * taken for dead and reopened.
 */
import type { NpcStatesFrame } from './types.js';

export type ConnectionState =
  | { kind: 'connecting'; attempt: number }
  | { kind: 'open' }
  | { kind: 'lost'; attempt: number; retryAt: number; since: number; reason: string };

export interface StreamHandlers {
  onFrame(frame: NpcStatesFrame, receivedAt: number): void;
  onState(state: ConnectionState): void;
  onServerError?(message: string): void;
}

const SILENCE_MS = 4000;
const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 5000;

export class StreamClient {
  private ws: WebSocket | null = null;
  private attempt = 0;
  private lostSince = 0;
  private retryTimer = 0;
  private watchdog = 0;
  private lastMessage = 0;
  private stopped = false;

  constructor(private readonly url: string, private readonly h: StreamHandlers) {}

  start(): void {
    this.stopped = false;
    this.connect();
    this.watchdog = window.setInterval(() => this.checkSilence(), 1000);
  }

  stop(): void {
    this.stopped = true;
    window.clearInterval(this.watchdog);
    window.clearTimeout(this.retryTimer);
    this.ws?.close();
  }

  private connect(): void {
    this.h.onState({ kind: 'connecting', attempt: this.attempt });
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url);
    } catch (err) {
      this.lost(`cannot open ${this.url}: ${(err as Error).message}`);
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.lostSince = 0;
      this.lastMessage = performance.now();
      this.h.onState({ kind: 'open' });
    };
    ws.onmessage = (ev: MessageEvent) => {
      const now = performance.now();
      this.lastMessage = now;
      if (typeof ev.data !== 'string') return;
      let msg: { type?: unknown; error?: unknown };
      try {
        msg = JSON.parse(ev.data) as { type?: unknown };
      } catch {
        return;
      }
      if (msg.type === 'npc_states') this.h.onFrame(msg as NpcStatesFrame, now);
      else if (msg.type === 'error' && typeof msg.error === 'string') this.h.onServerError?.(msg.error);
    };
    ws.onclose = (ev: CloseEvent) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.lost(ev.code === 1006 || ev.code === 1005 ? 'the connection to the server was lost' : `the server closed the connection (${ev.code}${ev.reason ? `: ${ev.reason}` : ''})`);
    };
  }

  private lost(reason: string): void {
    if (this.stopped) return;
    const delay = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** this.attempt);
    this.attempt++;
    if (!this.lostSince) this.lostSince = Date.now();
    this.h.onState({ kind: 'lost', attempt: this.attempt, retryAt: Date.now() + delay, since: this.lostSince, reason });
    window.clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => this.connect(), delay);
  }

  private checkSilence(): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    if (performance.now() - this.lastMessage > SILENCE_MS) {
      this.ws = null;
      ws.onclose = null;
      ws.close();
      this.lost(`no frame from the server for ${SILENCE_MS / 1000} s`);
    }
  }
}
