/**
 * Simulated egos on the wire (run mode rt_comms, seed 001 §4–5): the scenario's comms file realised by the
 * co-simulation's router — STATE, sensor and command templates fanned out after every plant tick of the ego
 * they belong to, VDS1 CMDs fanned in on the listen ports (decoded and checked as `vils realtime` does, latched
 * at once, the fail-safe after cmd_timeout of simulation time) — and the JSON data port (`/api/io`) over the
 * same vehicles. Without a comms file the link only serves the data port. Times are simulation seconds (in a
 * real-time session they follow the wall clock).
 */
import type { RemoteInfo, Socket } from 'node:dgram';
import { CommsRouter } from '../cosim/comms/router.js';
import type { CommsSpec } from '../cosim/comms/config.js';
import { JsonDataPort } from '../cosim/ports.js';
import { bindUdp, closeSocket, senderSocket } from '../cosim/udp.js';
import { VDS1_VERSION, Vds1CmdReceiver } from '../cosim/vds1.js';
import type { CosimVehicle } from '../cosim/vehicle.js';
import type { SimEgo } from './sim-ego.js';

export interface CommsLinkOptions {
  /** simulation time now [s] (stamps arriving commands) */
  now: () => number;
  protocolVersion?: number;
  /** where the command ports listen (default 127.0.0.1; `vils serve` passes its own host) */
  bindAddress?: string;
  running?: () => boolean;
}

export class EgoCommsLink {
  readonly router: CommsRouter | null;
  readonly receiver: Vds1CmdReceiver<CosimVehicle>;
  readonly dataPort: JsonDataPort;
  readonly cmdPorts: number[] = [];
  readonly protocolVersion: number;
  private readonly sockets: Socket[] = [];
  private tx: Socket | undefined;
  private seq = 0;
  private lastTick = 0;
  handlerErrors = 0;

  private constructor(readonly egos: readonly SimEgo[], comms: CommsSpec | null, private readonly opts: CommsLinkOptions) {
    const vehicles = egos.map((e) => e.vehicle);
    this.protocolVersion = opts.protocolVersion ?? VDS1_VERSION;
    const byId = new Map(vehicles.map((v) => [v.id, v]));
    this.receiver = new Vds1CmdReceiver(this.protocolVersion, (id) => byId.get(id), vehicles[0].id);
    this.router = comms ? new CommsRouter(comms, vehicles, this.protocolVersion) : null;
    this.dataPort = new JsonDataPort({
      vehicles,
      dt: egos[0].spec.dt,
      timeScale: () => 1,
      now: opts.now,
      running: opts.running ?? (() => true),
      lastTickAt: () => this.lastTick,
      protocolVersion: this.protocolVersion,
      comms: () => (this.router ? { mode: 'comms', name: this.router.spec.name, cmd_ports: [...this.cmdPorts] } : { mode: 'none' }),
    });
  }

  static async open(egos: readonly SimEgo[], comms: CommsSpec | null, opts: CommsLinkOptions): Promise<EgoCommsLink> {
    const link = new EgoCommsLink(egos, comms, opts);
    try {
      link.tx = await senderSocket();
      link.dataPort.useSocket(link.tx);
      for (const rx of link.router?.rx ?? []) {
        const sock = await bindUdp({ port: rx.port, address: opts.bindAddress ?? '127.0.0.1', recvBufferSize: 1 << 20 });
        sock.on('message', (msg: Buffer, _r: RemoteInfo) => link.onDatagram(msg, rx.defaultVehicleId));
        link.sockets.push(sock);
        link.cmdPorts.push(sock.address().port);
      }
    } catch (err) {
      await link.close();
      throw err;
    }
    for (const e of egos) e.onTick = (ego, t) => link.afterTick(ego, t);
    return link;
  }

  private onDatagram(msg: Buffer, defaultVehicleId: number): void {
    try {
      const v = this.receiver.receive(msg, msg.length, defaultVehicleId);
      if (v) v.applyCmd(this.receiver.cmd, this.opts.now());
    } catch {
      this.handlerErrors++;
    }
  }

  /** After each plant tick of `ego`: its channels out, and the data port's telemetry. */
  afterTick(ego: SimEgo, t: number): void {
    this.lastTick = t;
    const sock = this.tx;
    if (!sock) return;
    if (this.router) this.seq = this.router.emit(sock, this.seq, t, Date.now(), ego.vehicle);
    if (ego === this.egos[0]) this.dataPort.tick(t);
  }

  async close(): Promise<void> {
    for (const e of this.egos) e.onTick = null;
    // the last ticks' frames are still queued in the socket (sent on a later event-loop turn): closing now
    // dropped them, so a run's controller missed its final STATEs; let them out first (bounded)
    const until = performance.now() + 250;
    while (this.tx && this.router && this.router.pending() > 0 && performance.now() < until) await new Promise((r) => setImmediate(r));
    await Promise.all([...this.sockets.map((s) => closeSocket(s)), closeSocket(this.tx)]);
    this.sockets.length = 0;
    this.tx = undefined;
  }
}
