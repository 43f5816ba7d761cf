/** Loopback UDP peers for the co-simulation tests: real sockets, every datagram recorded with its arrival time. */
import { type Socket, createSocket } from 'node:dgram';
import { tireParams, vehicleParams } from '../../../src/plant/index.js';
import type { VehicleSpec } from '../../../src/cosim/scene.js';
import type { RealtimeWorld } from '../../../src/cosim/realtime.js';

export interface Received {
  t: number;
  buf: Buffer;
  from: { address: string; port: number };
}

export class UdpPeer {
  readonly messages: Received[] = [];
  private constructor(
    readonly socket: Socket,
    readonly port: number,
  ) {
    socket.on('message', (buf, rinfo) => this.messages.push({ t: performance.now() / 1000, buf, from: { address: rinfo.address, port: rinfo.port } }));
  }

  static open(port = 0): Promise<UdpPeer> {
    return new Promise((resolve, reject) => {
      const s = createSocket('udp4');
      s.once('error', reject);
      s.bind(port, '127.0.0.1', () => resolve(new UdpPeer(s, s.address().port)));
    });
  }

  send(buf: Buffer, port: number, host = '127.0.0.1'): Promise<void> {
    return new Promise((resolve, reject) => this.socket.send(buf, port, host, (err) => (err ? reject(err) : resolve())));
  }

  /** Polls pred; the timeout (at least 20 s) only guards against a hang, so a busy machine never fails a wait. */
  async waitFor(pred: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
    timeoutMs = Math.max(timeoutMs, 20_000);
    const t0 = Date.now();
    while (!pred()) {
      if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${this.messages.length} datagrams received)`);
      await sleep(5);
    }
  }

  clear(): void {
    this.messages.length = 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A port free right now (bound and released). */
export async function freePort(): Promise<number> {
  const p = await UdpPeer.open(0);
  const port = p.port;
  await p.close();
  return port;
}

export function vehicleSpec(id: number, over: Partial<VehicleSpec> = {}): VehicleSpec {
  const t = tireParams();
  return { id, level: 'L2', vehicle: vehicleParams(), tires: [t, t, t, t], x0: 0, y0: 0, z0: 0, yaw0: 0, vx0: 0, control: 'external', pathLookahead: 8, label: `vehicle ${id}`, ...over };
}

export function world(vehicles: VehicleSpec[] = [vehicleSpec(0)], comms?: RealtimeWorld['comms']): RealtimeWorld {
  return { label: 'test', vehicles, ground: { mu: 1, muRight: -1, muBoundary: 0, grade: 0, bank: 0 }, sensorDelayS: 0, comms };
}
