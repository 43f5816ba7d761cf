/**
 * Connected WebSocket clients, each with a bounded send queue: a frame is handed to the socket only when
 * the previous one has been written, and when a slow client's queue is full its oldest frame is dropped
 * and counted. The loop never waits for a client.
 *
 * Replies to a client's own messages (errors, pongs) have a small queue of their own, so a burst of
 * broadcasts never pushes them out and a burst of errors never pushes out frames: the two queues take
 * turns on the socket. Errors beyond MAX_REPLIES waiting, or beyond ERROR_REPLIES_PER_S a second, are
 * coalesced into one "N more errors" reply sent at most once a second: a client that sends thousands of bad
 * messages a second must not make the server write thousands of replies (each a socket write: under issue 26's
 * parse attack they were most of the server's work).
 */
import type { WebSocket } from 'ws';

/** replies (errors, pongs) waiting per client; further errors are counted and reported in one line */
export const MAX_REPLIES = 4;
/** errors answered one by one per second and client, in bursts of as many; the rest are coalesced */
export const ERROR_REPLIES_PER_S = 20;
/** how long after the first coalesced error its "N more errors" reply is sent [ms] */
export const COALESCED_REPLY_MS = 1000;

export class ClientChannel {
  private readonly queue: Array<string | Buffer> = [];
  /** per queued frame: send it as a binary message */
  private readonly queueBinary: boolean[] = [];
  /** npc_states as binary frames (wire-binary.ts; the client asked with ?format=binary), else JSON text */
  binary = false;
  private readonly replies: string[] = [];
  private sending = false;
  /** the last frame written was a reply: a frame goes next if one waits */
  private lastWasReply = false;
  /** errors not sent one by one since the last summary, and the latest of them */
  private coalesced = 0;
  private lastCoalesced = '';
  dropped = 0;
  sent = 0;
  /** errors sent one by one, and errors reported only as part of an "N more errors" line */
  errorsSent = 0;
  errorsCoalesced = 0;
  private errorTokens = ERROR_REPLIES_PER_S;
  private tokensAt = performance.now();
  /** the coalesced errors' reply is due (COALESCED_REPLY_MS after the first of them) */
  private summaryDue = false;
  private summaryTimer: NodeJS.Timeout | null = null;

  constructor(readonly socket: WebSocket, readonly id: number, private readonly maxQueue: () => number) {}

  /** Queues an error reply ({"type": "error"}); in a burst, errors beyond MAX_REPLIES are coalesced. */
  sendError(error: string): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    const now = performance.now();
    this.errorTokens = Math.min(ERROR_REPLIES_PER_S, this.errorTokens + ((now - this.tokensAt) / 1000) * ERROR_REPLIES_PER_S);
    this.tokensAt = now;
    if (this.replies.length >= MAX_REPLIES || this.errorTokens < 1) {
      this.coalesced++;
      this.errorsCoalesced++;
      this.lastCoalesced = error;
      this.summaryTimer ??= setTimeout(() => {
        this.summaryTimer = null;
        this.summaryDue = true;
        if (this.socket.readyState === this.socket.OPEN) this.flush();
      }, COALESCED_REPLY_MS).unref();
      return;
    }
    this.errorTokens -= 1;
    this.errorsSent++;
    this.replies.push(JSON.stringify({ type: 'error', error }));
    this.flush();
  }

  /**
   * Queues an error that must not be coalesced with others (the rate-limit and clock notices, which their
   * callers send at most once a second): it waits behind the replies already queued, never dropped.
   */
  sendNotice(error: string): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.replies.push(JSON.stringify({ type: 'error', error }));
    this.flush();
  }

  /** Queues a reply that is not an error (a pong); dropped when MAX_REPLIES are waiting. */
  sendReply(text: string): void {
    if (this.socket.readyState !== this.socket.OPEN || this.replies.length >= MAX_REPLIES) return;
    this.replies.push(text);
    this.flush();
  }

  private nextReply(): string | undefined {
    const r = this.replies.shift();
    if (r !== undefined) return r;
    if (this.coalesced === 0 || !this.summaryDue) return undefined;
    this.summaryDue = false;
    const n = this.coalesced;
    this.coalesced = 0;
    return JSON.stringify({ type: 'error', error: `${n} more error${n === 1 ? '' : 's'} (the last: ${this.lastCoalesced.slice(0, 300)})`, more_errors: n });
  }

  /** Queues a frame: text (a Buffer holds UTF-8 JSON, encoded once for all clients), or binary. */
  send(frame: string | Buffer, binary = false): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.queue.length >= this.maxQueue()) {
      this.queue.shift();
      this.queueBinary.shift();
      this.dropped++;
    }
    this.queue.push(frame);
    this.queueBinary.push(binary);
    this.flush();
  }

  private flush(): void {
    if (this.sending) return;
    let frame: string | Buffer | undefined = this.lastWasReply ? undefined : this.nextReply();
    this.lastWasReply = frame !== undefined;
    let binary = false;
    if (frame === undefined && this.queue.length > 0) {
      frame = this.queue.shift();
      binary = this.queueBinary.shift() ?? false;
    }
    frame ??= this.nextReply();
    if (frame === undefined) return;
    this.sending = true;
    this.socket.send(frame, { binary }, (err) => {
      this.sending = false;
      if (!err) this.sent++;
      if (this.socket.readyState === this.socket.OPEN) this.flush();
    });
  }
}

export class ClientRegistry {
  private readonly clients = new Map<number, ClientChannel>();
  private nextId = 1;
  totalDropped = 0;

  constructor(private readonly maxQueue: () => number) {}

  add(socket: WebSocket): ClientChannel {
    const c = new ClientChannel(socket, this.nextId++, this.maxQueue);
    this.clients.set(c.id, c);
    return c;
  }

  remove(c: ClientChannel): void {
    this.totalDropped += c.dropped;
    this.clients.delete(c.id);
  }

  /**
   * Sends one frame to every client, encoded to UTF-8 once; clients that asked for binary frames get
   * `binary()` instead (made once, when one of them is connected) where it is given.
   */
  broadcast(frame: string, binary?: () => Buffer): void {
    if (this.clients.size === 0) return;
    let bytes: Buffer | null = null;
    let bin: Buffer | null = null;
    for (const c of this.clients.values()) {
      if (c.binary && binary) c.send((bin ??= binary()), true);
      else c.send((bytes ??= Buffer.from(frame, 'utf8')));
    }
  }

  get size(): number {
    return this.clients.size;
  }

  dropped(): number {
    let n = this.totalDropped;
    for (const c of this.clients.values()) n += c.dropped;
    return n;
  }

  closeAll(): void {
    for (const c of this.clients.values()) c.socket.close(1001, 'server shutting down');
  }
}
