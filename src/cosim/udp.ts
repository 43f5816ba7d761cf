/**
 * UDP plumbing of the co-simulation: binding a socket (IPv4), and a small ring of reusable send buffers. Node
 * queues a datagram until it is handed to the kernel (a later event-loop turn for an unconnected socket), so a
 * frame must not be re-encoded into the buffer of one still queued: each stream rotates through a few
 * buffers, encoded in place, and skips those still queued (TxRing).
 */
import { type Socket, createSocket } from 'node:dgram';

export interface BindOptions {
  port: number;
  address?: string;
  /** SO_RCVBUF [bytes] for bursts of commands (the kernel may cap it). */
  recvBufferSize?: number;
  /** Called for asynchronous socket errors (the socket stays open). */
  onError?: (err: Error) => void;
}

/** A UDP socket bound to address:port (port 0: any free port). Rejects if the port is taken. */
export function bindUdp(opts: BindOptions): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sock = createSocket({ type: 'udp4', reuseAddr: false });
    const fail = (err: Error) => {
      sock.close();
      reject(err);
    };
    sock.once('error', fail);
    sock.bind(opts.port, opts.address ?? '0.0.0.0', () => {
      sock.off('error', fail);
      sock.on('error', (err) => opts.onError?.(err));
      if (opts.recvBufferSize) {
        try {
          sock.setRecvBufferSize(opts.recvBufferSize);
        } catch {
          // capped or refused by the OS: keep the default
        }
      }
      resolve(sock);
    });
  });
}

/** An unbound-then-bound ephemeral socket for sending only. */
export function senderSocket(onError?: (err: Error) => void): Promise<Socket> {
  return bindUdp({ port: 0, onError });
}

/**
 * A few send buffers used in turn. A user that tells the ring about its sends (`hold` after `next`, `sent` from
 * each send's callback) never gets a buffer a queued send still holds: when a burst of frames within one
 * event-loop turn (a simulated ego's plant ticking 20 steps for one 0.1 s scene step) has every buffer queued,
 * the ring grows by one, and keeps it, so once it has the longest burst's size it allocates nothing more.
 * Without `hold` it is the plain rotation (one frame per tick, as `vils realtime` sends).
 */
export class TxRing {
  private readonly bufs: Buffer[];
  /** sends still queued on each buffer */
  private readonly queued: number[];
  private i = 0;
  private last = -1;
  /** the buffers with sends queued, in the order they were queued (one entry per hold), and their sends */
  private fifo = new Int32Array(16);
  private fifoSends = new Int32Array(16);
  private head = 0;
  private len = 0;
  /** buffers added because every one was held by a queued send */
  grown = 0;

  constructor(private readonly bytes: number, slots = 8) {
    this.bufs = Array.from({ length: slots }, () => Buffer.allocUnsafeSlow(bytes).fill(0));
    this.queued = this.bufs.map(() => 0);
  }

  get size(): number {
    return this.bufs.length;
  }

  /** buffers with sends still queued (held and not yet `sent`) */
  get pending(): number {
    return this.len;
  }

  /** The next buffer no queued send holds (a new one when every buffer is held). */
  next(): Buffer {
    const n = this.bufs.length;
    let k = 0;
    while (k < n && this.queued[this.i] > 0) {
      this.i = (this.i + 1) % n;
      k++;
    }
    if (k === n) {
      this.bufs.push(Buffer.allocUnsafeSlow(this.bytes).fill(0));
      this.queued.push(0);
      this.i = n;
      this.grown++;
    }
    const s = this.i;
    this.last = s;
    this.i = (s + 1) % this.bufs.length;
    return this.bufs[s];
  }

  /** `n` sends of the buffer `next()` returned last are queued: it is not handed out again until they complete. */
  hold(n = 1): void {
    if (this.last < 0 || n <= 0) return;
    this.queued[this.last] += n;
    if (this.len === this.fifo.length) {
      const cap = this.fifo.length;
      const f = new Int32Array(cap * 2);
      const c = new Int32Array(cap * 2);
      for (let j = 0; j < this.len; j++) {
        f[j] = this.fifo[(this.head + j) % cap];
        c[j] = this.fifoSends[(this.head + j) % cap];
      }
      this.fifo = f;
      this.fifoSends = c;
      this.head = 0;
    }
    const at = (this.head + this.len) % this.fifo.length;
    this.fifo[at] = this.last;
    this.fifoSends[at] = n;
    this.len++;
  }

  /**
   * A send completed (its callback ran). Node hands one socket's datagrams to the kernel in the order they
   * were queued, so a completion means the oldest queued send is out: that one is released.
   */
  sent(): void {
    if (this.len === 0) return;
    const h = this.head;
    this.queued[this.fifo[h]]--;
    if (--this.fifoSends[h] === 0) {
      this.head = (h + 1) % this.fifo.length;
      this.len--;
    }
  }
}

export function closeSocket(sock: Socket | undefined): Promise<void> {
  if (!sock) return Promise.resolve();
  return new Promise((resolve) => {
    try {
      sock.close(() => resolve());
    } catch {
      resolve();
    }
  });
}
