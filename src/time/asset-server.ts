/**
 * The UDP endpoint of the external-asset protocol (asset-protocol.ts): binds a socket, turns datagrams into
 * attach / report / remove calls on an AssetHub (a TimeSession), answers every report with Tc and pushes Tc to
 * every asset when it changes. It does not drive the core: the session's driver does (session.advance() in the
 * caller's loop, or runSession). Bad datagrams are dropped and counted by reason; nothing a peer sends can throw
 * out of the socket handler.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { JoinError } from './conductor.js';
import type { AssetHub, RunnerEvent } from './session-types.js';
import { DEFAULT_ASSET_PORT, type DropReason, type ServerMessage, decodeClientMessage, encodeServerMessage } from './asset-protocol.js';

export interface AssetServerOptions {
  readonly hub: AssetHub;
  /** Default 127.0.0.1: the protocol has no authentication, bind wider only on a trusted network. */
  readonly host?: string;
  /** Default DEFAULT_ASSET_PORT (47800); 0 picks a free port. */
  readonly port?: number;
  /** Advertised to assets: the time out after which a silent asset is removed [ms] (the session's assetTimeoutS). */
  readonly timeoutMs: number;
  /** Advertised heartbeat interval [ms] (default timeoutMs / 4). */
  readonly heartbeatMs?: number;
  /** Registrations beyond this many assets are refused ('too_many_assets'; default 256). */
  readonly maxAssets?: number;
}

export type ServerDropReason = DropReason | 'not_registered' | 'wrong_address' | 'internal_error';

export interface AssetServerStats {
  received: number;
  sent: number;
  dropped: Partial<Record<ServerDropReason, number>>;
  registered: number;
  removed: Record<string, number>;
}

interface Peer {
  readonly address: string;
  readonly port: number;
}

export class AssetServer {
  private readonly hub: AssetHub;
  private readonly host: string;
  private readonly port: number;
  private readonly timeoutMs: number;
  private readonly heartbeatMs: number;
  private readonly maxAssets: number;
  private socket: Socket | undefined;
  private readonly peers = new Map<string, Peer>();
  private seq = 0;
  private readonly unsubscribe: (() => void)[] = [];
  readonly stats: AssetServerStats = { received: 0, sent: 0, dropped: {}, registered: 0, removed: {} };

  constructor(opts: AssetServerOptions) {
    this.hub = opts.hub;
    this.host = opts.host ?? '127.0.0.1';
    this.port = opts.port ?? DEFAULT_ASSET_PORT;
    this.timeoutMs = opts.timeoutMs;
    this.heartbeatMs = opts.heartbeatMs ?? Math.max(1, Math.floor(opts.timeoutMs / 4));
    this.maxAssets = opts.maxAssets ?? 256;
  }

  /** Binds the socket; resolves with the bound address. */
  async start(): Promise<AddressInfo> {
    if (this.socket) throw new Error('the asset server is already started');
    const s = createSocket({ type: this.host.includes(':') ? 'udp6' : 'udp4' });
    this.socket = s;
    s.on('message', (buf, rinfo) => {
      try {
        this.onMessage(buf, rinfo);
      } catch {
        this.drop('internal_error');
      }
    });
    s.on('error', () => this.drop('internal_error'));
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.bind(this.port, this.host, () => {
        s.off('error', reject);
        resolve();
      });
    });
    this.unsubscribe.push(this.hub.onTc((tc) => this.pushTc(tc)));
    this.unsubscribe.push(this.hub.onEvent((e) => this.onHubEvent(e)));
    return s.address();
  }

  async close(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    const s = this.socket;
    this.socket = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Names of the assets registered over this server. */
  assets(): string[] {
    return [...this.peers.keys()];
  }

  private onMessage(buf: Buffer, from: RemoteInfo): void {
    this.stats.received++;
    const d = decodeClientMessage(buf);
    if (!d.ok) return this.drop(d.reason);
    const m = d.msg;
    const c = this.hub.conductor;
    const peer = this.peers.get(m.name);
    const samePeer = peer !== undefined && peer.address === from.address && peer.port === from.port;
    switch (m.type) {
      case 'register': {
        if (peer && samePeer) {
          const st = c.assetStatus(m.name);
          if (st && st.stepUs === m.stepUs && st.kind === m.kind) return this.sendRegistered(m.name, from); // a repeat: our answer was lost
        }
        if (peer || c.has(m.name)) return this.send(from, { type: 'error', reason: 'name_taken', detail: `an asset named ${m.name} is already present` });
        if (this.peers.size >= this.maxAssets) return this.send(from, { type: 'error', reason: 'too_many_assets', detail: `this server takes at most ${this.maxAssets} assets` });
        try {
          this.hub.attach(m.name, { stepUs: m.stepUs, kind: m.kind });
        } catch (err) {
          if (err instanceof JoinError) return this.send(from, { type: 'error', reason: err.reason, detail: err.message });
          throw err;
        }
        this.peers.set(m.name, { address: from.address, port: from.port });
        this.stats.registered++;
        return this.sendRegistered(m.name, from);
      }
      case 'report': {
        if (!peer) {
          this.drop('not_registered');
          return this.send(from, { type: 'error', reason: 'not_registered', detail: `no asset named ${m.name}: register first` });
        }
        if (!samePeer) return this.drop('wrong_address');
        const r = this.hub.report(m.name, m.timeUs, m.held);
        // always answered (the answer is the asset's heartbeat reply); a count-up it allows is pushed after
        return this.send(from, { type: 'tc', tcUs: c.timeUs, timeUs: r.timeUs, seq: ++this.seq, ...(r.accepted ? {} : { refused: r.reason }) });
      }
      case 'leave': {
        if (!peer) {
          this.drop('not_registered');
          return this.send(from, { type: 'error', reason: 'not_registered', detail: `no asset named ${m.name}` });
        }
        if (!samePeer) return this.drop('wrong_address');
        this.peers.delete(m.name);
        this.hub.remove(m.name, 'left');
        return this.send(from, { type: 'left', name: m.name });
      }
    }
  }

  private sendRegistered(name: string, to: Peer): void {
    const c = this.hub.conductor;
    const st = c.assetStatus(name);
    if (!st) return;
    this.send(to, {
      type: 'registered', name, timeUs: st.timeUs, tcUs: c.timeUs, stepUs: st.stepUs, coreStepUs: c.coreStepUs, dmaxUs: c.dmaxUs, mode: c.mode,
      timeoutMs: this.timeoutMs, heartbeatMs: this.heartbeatMs,
    });
  }

  private pushTc(tcUs: number): void {
    const c = this.hub.conductor;
    for (const [name, peer] of this.peers) this.send(peer, { type: 'tc', tcUs, timeUs: c.assetTimeUs(name) ?? NaN, seq: ++this.seq });
  }

  private onHubEvent(e: RunnerEvent): void {
    if (e.type !== 'left') return;
    const peer = this.peers.get(e.name);
    if (!peer) return;
    this.peers.delete(e.name);
    this.stats.removed[e.reason] = (this.stats.removed[e.reason] ?? 0) + 1;
    this.send(peer, { type: 'removed', name: e.name, reason: e.reason });
  }

  private send(to: Peer, m: ServerMessage): void {
    const s = this.socket;
    if (!s) return;
    this.stats.sent++;
    s.send(encodeServerMessage(m), to.port, to.address, () => undefined);
  }

  private drop(reason: ServerDropReason): void {
    this.stats.dropped[reason] = (this.stats.dropped[reason] ?? 0) + 1;
  }
}
