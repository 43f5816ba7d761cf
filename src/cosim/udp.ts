/**
 * UDP plumbing of the co-simulation: binding a socket (IPv4), and a small ring of reusable send buffers. Node
 * queues a datagram until it is handed to the kernel (a later event-loop turn for an unconnected socket), so a
 * frame must not be re-encoded into the buffer of one still queued: each stream rotates through a few
 * buffers, which are encoded in place and never reallocated.
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

/** A few send buffers used in turn. */
export class TxRing {
  private readonly bufs: Buffer[];
  private i = 0;

  constructor(bytes: number, slots = 8) {
    this.bufs = Array.from({ length: slots }, () => Buffer.allocUnsafeSlow(bytes).fill(0));
  }

  next(): Buffer {
    const b = this.bufs[this.i];
    this.i = (this.i + 1) % this.bufs.length;
    return b;
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
