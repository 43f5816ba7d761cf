/**
 * Connected WebSocket clients, each with a bounded send queue: a frame is handed to the socket only when
 * the previous one has been written, and when a slow client's queue is full its oldest frame is dropped
 * and counted. The loop never waits for a client.
 */
import type { WebSocket } from 'ws';

export class ClientChannel {
  private readonly queue: Array<string | Buffer> = [];
  private sending = false;
  dropped = 0;
  sent = 0;

  constructor(readonly socket: WebSocket, readonly id: number, private readonly maxQueue: () => number) {}

  /** Queues a text frame (a Buffer holds UTF-8 JSON, encoded once for all clients). */
  send(frame: string | Buffer): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.queue.length >= this.maxQueue()) {
      this.queue.shift();
      this.dropped++;
    }
    this.queue.push(frame);
    this.flush();
  }

  private flush(): void {
    if (this.sending) return;
    const frame = this.queue.shift();
    if (frame === undefined) return;
    this.sending = true;
    this.socket.send(frame, { binary: false }, (err) => {
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

  /** Sends one frame to every client, encoded to UTF-8 once. */
  broadcast(frame: string): void {
    if (this.clients.size === 0) return;
    const bytes = Buffer.from(frame, 'utf8');
    for (const c of this.clients.values()) c.send(bytes);
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
