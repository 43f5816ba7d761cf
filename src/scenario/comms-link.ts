/**
 * Simulated egos on the wire (run mode rt_comms, seed 001 §4–5): the scenario's comms file realised by the
 * co-simulation's router — STATE, sensor and command templates fanned out after every plant tick of the ego
 * they belong to, VDS1 CMDs fanned in on the listen ports (decoded and checked as `vils realtime` does, latched
 * at once, the fail-safe after cmd_timeout of simulation time) — and the JSON data port (`/api/io`) over the
 * same vehicles. Without a comms file the link only serves the data port. Times are simulation seconds (in a
 * real-time session they follow the wall clock).
 *
 * Exposure (issue 26), as `vils realtime`: VDS1 has no authentication, so the listen ports bind 127.0.0.1
 * unless the comms file says `bind:` (never the HTTP server's --host), beyond loopback only the sources its
 * `allow:` names are taken (others dropped before decoding, counted), and no CMD adds a subscriber: STATE
 * goes only to the channels' `to` (VDSim's legacy STATE-to-every-sender rule is `vils realtime`'s legacy mode
 * alone), so the auto-subscriber cap is 0.
 */
import type { RemoteInfo, Socket } from 'node:dgram';
import { CommsRouter } from '../cosim/comms/router.js';
import type { CommsSpec } from '../cosim/comms/config.js';
import { JsonDataPort } from '../cosim/ports.js';
import { SourceFilter, SourceListError, allowAllWarning, isLoopbackAddress } from '../cosim/sources.js';
import { bindUdp, closeSocket, senderSocket } from '../cosim/udp.js';
import { VDS1_VERSION, Vds1CmdReceiver } from '../cosim/vds1.js';
import type { CosimVehicle } from '../cosim/vehicle.js';
import type { SimEgo } from './sim-ego.js';

export interface CommsLinkOptions {
  /** simulation time now [s] (stamps arriving commands) */
  now: () => number;
  protocolVersion?: number;
  /** where the command ports listen, over the comms file's `bind` (default 127.0.0.1); beyond loopback the file's `allow` must name whose commands are taken */
  bindAddress?: string;
  running?: () => boolean;
}

/** Where the command ports listen and whom they take commands from (`warning`: the allow-list takes everyone). */
export interface CmdExposure {
  bind: string;
  allow: string[];
  refused_sources: number;
  max_auto_subscribers: 0;
  warning?: string;
}

/** The command ports listen here unless the comms file says `bind:` (answering other machines is a choice). */
export const DEFAULT_BIND_ADDRESS = '127.0.0.1';

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
  /** datagrams from sources outside the allow-list, dropped before decoding */
  refusedSources = 0;
  /** where the command ports listen */
  readonly bind: string;
  private readonly sources: SourceFilter;
  private readonly commsFile: string | null;

  private constructor(readonly egos: readonly SimEgo[], comms: CommsSpec | null, private readonly opts: CommsLinkOptions) {
    const vehicles = egos.map((e) => e.vehicle);
    this.protocolVersion = opts.protocolVersion ?? VDS1_VERSION;
    const byId = new Map(vehicles.map((v) => [v.id, v]));
    this.receiver = new Vds1CmdReceiver(this.protocolVersion, (id) => byId.get(id), vehicles[0].id);
    this.router = comms ? new CommsRouter(comms, vehicles, this.protocolVersion) : null;
    this.bind = opts.bindAddress ?? comms?.bind ?? DEFAULT_BIND_ADDRESS;
    this.sources = new SourceFilter(comms?.allow ?? []);
    this.commsFile = comms?.file ?? null;
    if (this.router && this.router.rx.length > 0 && !isLoopbackAddress(this.bind) && this.sources.entries.length === 0) {
      throw new SourceListError(`${comms!.file}: binding ${this.bind} answers other machines: name the addresses whose commands are taken in ${comms!.prefix ? `${comms!.prefix}.` : ''}allow (e.g. allow: [192.168.1.20, 10.0.0.0/24]); VDS1 has no authentication`);
    }
    this.dataPort = new JsonDataPort({
      vehicles,
      dt: egos[0].spec.dt,
      timeScale: () => 1,
      now: opts.now,
      running: opts.running ?? (() => true),
      lastTickAt: () => this.lastTick,
      protocolVersion: this.protocolVersion,
      comms: () => (this.router ? { mode: 'comms', name: this.router.spec.name, cmd_ports: [...this.cmdPorts], ...this.exposure() } : { mode: 'none' }),
    });
  }

  static async open(egos: readonly SimEgo[], comms: CommsSpec | null, opts: CommsLinkOptions): Promise<EgoCommsLink> {
    const link = new EgoCommsLink(egos, comms, opts);
    try {
      link.tx = await senderSocket();
      link.dataPort.useSocket(link.tx);
      for (const rx of link.router?.rx ?? []) {
        const sock = await bindUdp({ port: rx.port, address: link.bind, recvBufferSize: 1 << 20 });
        sock.on('message', (msg: Buffer, r: RemoteInfo) => link.onDatagram(msg, r, rx.defaultVehicleId));
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

  /** Who may reach the command ports: the status's view (also in /api/io's comms); an allow-list of everyone says so. */
  exposure(): CmdExposure {
    const warning = allowAllWarning(this.sources.entries, `${this.commsFile ?? 'the comms file'}: allow`);
    return { bind: this.bind, allow: [...this.sources.entries], refused_sources: this.refusedSources, max_auto_subscribers: 0, ...(warning ? { warning } : {}) };
  }

  // (the sender's address is used for the allow-list only: STATE never goes back to it, see the header)
  private onDatagram(msg: Buffer, from: RemoteInfo, defaultVehicleId: number): void {
    if (!this.sources.allows(from.address)) {
      this.refusedSources++;
      return;
    }
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
