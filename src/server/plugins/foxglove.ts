/**
 * Foxglove live view: the Foxglove WebSocket protocol (@foxglove/ws-protocol, subprotocol
 * foxglove.websocket.v1) for a scene, at `<scene prefix>/foxglove` on the server's port, or on a port of its
 * own (`vils serve --foxglove-port 8765`: the default scene at `/`, others at `/scenes/<name>`).
 *
 * Channels (JSON encoding, JSON schemas from @foxglove/schemas; builders in src/record/foxglove-messages.ts):
 *   /vils/scene foxglove.SceneUpdate · /vils/map foxglove.SceneUpdate · /vils/fix foxglove.LocationFix ·
 *   /vils/fixes foxglove.LocationFixes · /vils/tf foxglove.FrameTransforms · /vils/npc_states (raw frames) ·
 *   /vils/signals vils.signals (every signal group's state; /vils/scene draws the groups' stop lines in their colours)
 * /vils/scene draws each NPC as what it is (metadata `kind`): vehicles and cyclists as boxes of their size, pedestrians
 * as upright cylinders, people in colours of their own; the recordings' Foxglove channels are the same messages.
 * A channel's messages are built only while a client is subscribed, once per frame for every client. A
 * client that does not keep up (more than `maxBufferedBytes` unsent) misses frames, counted as dropped; the
 * loop never waits for it. On the server's port a Foxglove connection counts like a stream connection (per
 * client and limits.max_connections) and its messages go through the same input limits before the protocol
 * parses them (per connection, per client, the server-wide parse budget): over them they are dropped, counted,
 * and a flood is closed with 1008.
 */
import { createServer, type IncomingMessage } from 'node:http';
import wsProtocol from '@foxglove/ws-protocol';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import type { GeoFrame } from '../../geo/frame.js';
import type { LoadedMap } from '../../map/scene-json.js';
import { FOXGLOVE_SCHEMAS, SIGNALS_SCHEMA, egoTransforms, locationFixes, mapUpdate, sceneUpdate, signalsMessage, timeToNs, type StopLines } from '../../record/foxglove-messages.js';
import type { FrameSink, PublishedFrame } from '../../session/runner.js';
import { npcStatesSchema } from '../schemas.js';
import { AccessError, type Admit } from '../access.js';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../body-policy.js';
import { afterWsError } from '../ws-errors.js';

export const FOXGLOVE_PATH = '/foxglove';
export const FOXGLOVE_SUBPROTOCOL = 'foxglove.websocket.v1';
/** what a plain HTTP request to a Foxglove port of its own is told (426) */
export const FOXGLOVE_PORT_ONLY = `this port serves only the Foxglove WebSocket protocol (an upgrade, subprotocol ${FOXGLOVE_SUBPROTOCOL}): it has no HTTP routes and reads no request body`;

/** What the Foxglove channels need from a scene (a SceneHost, or a playback). */
export interface FoxgloveSource {
  readonly name: string;
  readonly geo: GeoFrame;
  readonly map: LoadedMap;
  frameText(frame: PublishedFrame): string;
  /** each signal group's stop line by group id, drawn on /vils/scene in the group's colour (none: not drawn) */
  readonly stopLines?: StopLines;
}

// a CommonJS package: its named exports are not visible to Node's ESM loader
const { FoxgloveServer } = wsProtocol;
type FoxgloveServer = InstanceType<typeof FoxgloveServer>;

type Topic = '/vils/scene' | '/vils/map' | '/vils/fix' | '/vils/fixes' | '/vils/tf' | '/vils/npc_states' | '/vils/signals';

const encoder = new TextEncoder();

/** An IWebSocket over a ws socket that drops message data (never control messages) for a client that lags. */
class BoundedSocket {
  dropped = 0;
  constructor(
    private readonly ws: WebSocket,
    private readonly maxBuffered: number,
    private readonly onDrop: () => void,
    /** after the server has handled a client's subscribe: each (subscription id, channel id) */
    private readonly onSubscribed: (subId: number, channelId: number, socket: BoundedSocket) => void,
    /** the input limits, checked before the protocol parses a message (none: no limits) */
    private readonly admit?: (bytes: number) => Admit,
  ) {}
  get binaryType(): string { return this.ws.binaryType; }
  set binaryType(v: string) { this.ws.binaryType = v as WebSocket['binaryType']; }
  get protocol(): string { return this.ws.protocol; }
  get onerror() { return this.ws.onerror; }
  set onerror(f) { this.ws.onerror = f; }
  get onopen() { return this.ws.onopen; }
  set onopen(f) { this.ws.onopen = f; }
  get onclose() { return this.ws.onclose; }
  set onclose(f) { this.ws.onclose = f; }
  get onmessage() { return this.ws.onmessage; }
  set onmessage(f) {
    this.ws.onmessage = f && ((ev) => {
      if (this.admit) {
        const d = ev.data as string | Buffer | ArrayBuffer | Buffer[];
        const bytes = typeof d === 'string' ? Buffer.byteLength(d) : Array.isArray(d) ? d.reduce((n, b) => n + b.length, 0) : d.byteLength;
        const a = this.admit(bytes);
        if (a === 'close') {
          this.ws.close(1008, 'rate limit exceeded: too many messages');
          setTimeout(() => this.ws.terminate(), 250).unref();
        }
        if (a !== 'ok') return;
      }
      f.call(this.ws, ev);
      if (typeof ev.data !== 'string' || !ev.data.includes('"subscribe"')) return;
      try {
        const m = JSON.parse(ev.data) as { op?: unknown; subscriptions?: Array<{ id?: unknown; channelId?: unknown }> };
        if (m.op !== 'subscribe' || !Array.isArray(m.subscriptions)) return;
        for (const x of m.subscriptions) if (typeof x?.id === 'number' && typeof x.channelId === 'number') this.onSubscribed(x.id, x.channelId, this);
      } catch {
        /* the server has reported it already */
      }
    });
  }
  /** Message data for one subscription of this client only (the spec's binary opcode 1). */
  sendTo(subId: number, timeNs: bigint, payload: Uint8Array): void {
    const frame = new Uint8Array(1 + 4 + 8 + payload.byteLength);
    const view = new DataView(frame.buffer);
    view.setUint8(0, 1);
    view.setUint32(1, subId, true);
    view.setBigUint64(5, timeNs, true);
    frame.set(payload, 13);
    this.send(frame);
  }
  close(): void { this.ws.close(); }
  send(data: string | ArrayBuffer | ArrayBufferView): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (typeof data !== 'string' && this.ws.bufferedAmount > this.maxBuffered) {
      this.dropped++;
      this.onDrop();
      return;
    }
    this.ws.send(data);
  }
}

export interface FoxgloveStats {
  clients: number;
  messages: number;
  bytes: number;
  dropped: number;
  frames: number;
}

export class FoxgloveChannels implements FrameSink {
  readonly server: FoxgloveServer;
  private readonly ids = new Map<Topic, number>();
  private readonly topicById = new Map<number, Topic>();
  private readonly subscribed = new Set<Topic>();
  private readonly sockets = new Set<WebSocket>();
  private mapPayload: Uint8Array | null = null;
  readonly stats: FoxgloveStats = { clients: 0, messages: 0, bytes: 0, dropped: 0, frames: 0 };

  constructor(private readonly source: FoxgloveSource, private readonly opts: { maxBufferedBytes?: number; onError?: (err: Error) => void } = {}) {
    this.server = new FoxgloveServer({ name: `VILS scene ${source.name}`, capabilities: [], supportedEncodings: ['json'] });
    const add = (topic: Topic, schemaName: string, schema: string) => {
      const id = this.server.addChannel({ topic, encoding: 'json', schemaName, schema, schemaEncoding: 'jsonschema' });
      this.ids.set(topic, id);
      this.topicById.set(id, topic);
    };
    add('/vils/scene', 'foxglove.SceneUpdate', FOXGLOVE_SCHEMAS['foxglove.SceneUpdate']);
    add('/vils/map', 'foxglove.SceneUpdate', FOXGLOVE_SCHEMAS['foxglove.SceneUpdate']);
    add('/vils/fix', 'foxglove.LocationFix', FOXGLOVE_SCHEMAS['foxglove.LocationFix']);
    add('/vils/fixes', 'foxglove.LocationFixes', FOXGLOVE_SCHEMAS['foxglove.LocationFixes']);
    add('/vils/tf', 'foxglove.FrameTransforms', FOXGLOVE_SCHEMAS['foxglove.FrameTransforms']);
    add('/vils/npc_states', 'vils.npc_states', JSON.stringify(npcStatesSchema));
    add('/vils/signals', 'vils.signals', JSON.stringify(SIGNALS_SCHEMA));
    this.server.on('subscribe', (id) => {
      const topic = this.topicById.get(id);
      if (!topic) return;
      this.subscribed.add(topic);
    });
    this.server.on('unsubscribe', (id) => {
      const topic = this.topicById.get(id);
      if (topic) this.subscribed.delete(topic);
    });
    this.server.on('error', (err) => this.opts.onError?.(err));
  }

  /** Takes a new client connection (a ws socket that negotiated foxglove.websocket.v1); `admit`: its input limits. */
  handle(socket: WebSocket, name: string, admit?: (bytes: number) => Admit): void {
    if (socket.protocol !== FOXGLOVE_SUBPROTOCOL) {
      socket.close(1002, `expected subprotocol ${FOXGLOVE_SUBPROTOCOL}`);
      return;
    }
    this.sockets.add(socket);
    this.stats.clients = this.sockets.size;
    // the map does not change: each client gets it once, when it subscribes
    const mapId = this.ids.get('/vils/map');
    const bounded = new BoundedSocket(socket, this.opts.maxBufferedBytes ?? 8 * 1024 * 1024, () => this.stats.dropped++, (subId, channelId, b) => {
      if (channelId === mapId) this.sendMap(b, subId);
    }, admit);
    this.server.handleConnection(bounded, name);
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.stats.clients = this.sockets.size;
    });
    // (a message over 64 KiB: ws closes it with 1009 itself; ws-errors.ts)
    socket.on('error', (err: Error & { code?: string }) => {
      if (afterWsError(err) === 'terminate') socket.terminate();
    });
  }

  private send(topic: Topic, timeNs: bigint, json: string): void {
    const payload = encoder.encode(json);
    this.stats.messages++;
    this.stats.bytes += payload.byteLength;
    this.server.sendMessage(this.ids.get(topic) as number, timeNs, payload);
  }

  private sendMap(client: BoundedSocket, subId: number): void {
    this.mapPayload ??= encoder.encode(JSON.stringify(mapUpdate(this.source.map, Date.now() / 1000)));
    this.stats.messages++;
    this.stats.bytes += this.mapPayload.byteLength;
    client.sendTo(subId, timeToNs(Date.now() / 1000), this.mapPayload);
  }

  publish(frame: PublishedFrame): void {
    if (this.sockets.size === 0 || this.subscribed.size === 0) return;
    this.stats.frames++;
    const s = frame.snapshot;
    const wall = frame.wallTimeS;
    const t = timeToNs(wall);
    const sub = this.subscribed;
    if (sub.has('/vils/scene')) this.send('/vils/scene', t, JSON.stringify(sceneUpdate(s, wall, this.source.stopLines)));
    if (sub.has('/vils/fix') || sub.has('/vils/fixes')) {
      const fixes = locationFixes(s, wall, this.source.geo);
      if (sub.has('/vils/fix')) for (const f of fixes) this.send('/vils/fix', t, JSON.stringify(f));
      if (sub.has('/vils/fixes')) this.send('/vils/fixes', t, JSON.stringify({ fixes }));
    }
    if (sub.has('/vils/tf')) this.send('/vils/tf', t, JSON.stringify(egoTransforms(s, wall)));
    if (sub.has('/vils/npc_states')) this.send('/vils/npc_states', t, this.source.frameText(frame));
    if (sub.has('/vils/signals')) this.send('/vils/signals', t, JSON.stringify(signalsMessage(s, wall)));
  }

  status(): Record<string, unknown> {
    return { clients: this.stats.clients, messages: this.stats.messages, bytes: this.stats.bytes, dropped: this.stats.dropped, subscribed: [...this.subscribed] };
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.close(1001, 'server shutting down');
  }
}

/** Picks foxglove.websocket.v1 when a client offers it (else ws's default: the first offered, if any). */
export function handleProtocols(protocols: Set<string>): string | false {
  if (protocols.has(FOXGLOVE_SUBPROTOCOL)) return FOXGLOVE_SUBPROTOCOL;
  const first = protocols.values().next();
  return first.done ? false : first.value;
}

/** The Foxglove endpoint of a scene at `<prefix>/foxglove` on the server's own port. */
export async function foxglovePlugin(app: FastifyInstance, opts: { channels: FoxgloveChannels }): Promise<void> {
  let n = 0;
  app.get(FOXGLOVE_PATH, { websocket: true }, (socket: WebSocket, req) => {
    // the server's access control (installAccess), when there is one: the connection and its input count like a stream's
    const access = app.vilsAccess;
    if (!access) return opts.channels.handle(socket, `${req.ip}#${++n}`);
    const peer = req.vilsPeer ?? access.identify(undefined, undefined, req.ip);
    let limiter: ReturnType<typeof access.connect>;
    try {
      limiter = access.connect(peer);
    } catch (err) {
      if (!(err instanceof AccessError)) throw err;
      if (err.statusCode !== 503) access.refused.forbidden++;
      if (access.logNow(`foxglove refused ${peer.key}`)) app.log.warn({ client: peer.label }, `Foxglove connection refused: ${err.message} (said at most once in 10 s per client)`);
      socket.close(err.statusCode === 503 ? 1013 : 1008, err.message.slice(0, 120));
      return;
    }
    socket.once('close', () => limiter.release());
    let closing = false;
    opts.channels.handle(socket, `${req.ip}#${++n}`, (bytes) => {
      if (closing) return 'drop';
      const a = limiter.admit(bytes);
      if (a === 'close') {
        closing = true;
        access.refused.closed_1008++;
        app.log.warn({ client: peer.label, dropped: limiter.dropped }, `Foxglove client ${peer.label} closed (1008): flooding, ${limiter.dropped} messages over the rate limit dropped`);
      }
      return a;
    });
  });
}

/**
 * The Foxglove endpoints on a port of their own: `/` is the first scene, `/scenes/<name>` the others.
 * Resolves when listening; `close()` stops it.
 */
export async function listenFoxglove(
  scenes: ReadonlyArray<{ name: string; channels: FoxgloveChannels }>, port: number, host: string,
  /** the access check of a connection: null to accept, else [HTTP status, reason] */
  verify?: (req: IncomingMessage) => [number, string] | null,
): Promise<{ port: number; close(): Promise<void> }> {
  // the port's HTTP side: upgrades only; any other request is answered 426 naming that, its body never read (the
  // body policy of every VILS server, src/server/body-policy.ts: this port has no route that takes one), and a
  // request must send its headers within 5 s and be whole within 30 s, as on the server's own port
  const http = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS }, (req, res) => {
    const text = JSON.stringify({ statusCode: 426, error: 'Upgrade Required', message: FOXGLOVE_PORT_ONLY });
    req.resume(); // (what it sent is let through and dropped, so the answer is not cut off by a reset)
    res.writeHead(426, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), connection: 'close' }).end(text);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const wss = new WebSocketServer({
    // (one message per connection per turn of the event loop, as on the server's port: src/server/app.ts)
    server: http, handleProtocols: (p) => handleProtocols(p), maxPayload: 64 * 1024, allowSynchronousEvents: false,
    ...(verify ? { verifyClient: (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, reason?: string) => void) => {
      const refusal = verify(info.req);
      if (refusal) done(false, refusal[0], refusal[1]);
      else done(true);
    } } : {}),
  });
  let n = 0;
  wss.on('connection', (socket: WebSocket, req: IncomingMessage) => {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '') || '/';
    const target = path === '/' ? scenes[0] : scenes.find((s) => path === `/scenes/${s.name}`);
    if (!target) {
      socket.close(1008, `no scene at ${path.slice(0, 64)}`);
      return;
    }
    target.channels.handle(socket, `${req.socket.remoteAddress ?? '?'}#${++n}`);
  });
  const address = http.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise<void>((resolve) => {
      for (const c of wss.clients) c.terminate();
      wss.close(() => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
    }),
  };
}
