/**
 * The WebSocket stream of a scene, /ws/vils/stream (seed protocol §3.4.1), as a fastify plugin: clients send
 * ego_state (and ping), every client receives npc_states at publish_hz. Bad messages get {"type":"error"}
 * replies (coalesced in a burst, see clients.ts); the connection and the loop stay up. Messages over 64 KiB
 * are closed with 1009 by ws itself.
 *
 * Who may send what (access.ts): any client with a viewer role may connect and ping; ego_state needs a
 * driver role, an ego id the token is granted, and an ego id no other client owns. Input is rate-limited
 * per connection and per client before it is even parsed: over the limit a message is dropped and counted,
 * the client is told at most once a second, and a connection that keeps flooding is closed with 1008. Then the
 * server-wide parse budget (all connections together, beyond each one's small reserve): over it a message is
 * dropped unparsed and counted as over_server_budget, the client told at most once a second ("server busy").
 * Fixes are placed on the server's clock at the moment they were taken (ego-clocks.ts: the car's clock offset
 * measured through clock probes, or taken as synchronised, or estimated from the fixes): a non-finite timestamp is
 * refused, a fix stamped in the future, older than ego_timeout_s or not after the last one is not used (the last
 * dropped and counted without a reply), and a client whose clock is off by more than a second is told so once.
 * Every connection that drives an ego is sent a clock_probe about once a second; its clock_reply answers feed
 * the clocks of the egos it drives.
 *
 * Signals: an operator-role client may set a signalised junction's groups live (`signal_input`, as a roadside
 * unit feeds its SPaT, typically at 10 Hz: each message renews the input) and end that (`signal_release`); each
 * is answered with `signal_ack`, or an error with the reason. JSON clients see every group's state in each
 * frame (`signals`); binary clients, whose frames carry NPCs and egos only, get a JSON `signal_states` text
 * message when a group's state or its source changes (and once a second, so a dropped one is made good).
 */
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { InputError } from '../../scene/index.js';
import type { ClientChannel } from '../clients.js';
import type { SceneHost } from '../host.js';
import { admitEgoState, clockNotice, describeSchemaErrors } from '../ego-admission.js';
import { CLOCK_PROBE_PERIOD_S, CLOCK_PROBES_KEPT } from '../ego-clocks.js';
import { clockReplySchema, pingSchema, signalInputSchema, signalReleaseSchema } from '../schemas.js';
import { egoReportFromGnss } from '../wire.js';
import type { FrameSink, PublishedFrame } from '../../session/runner.js';
import type { LiveSignalInput } from '../../scene/signals/index.js';
import { AccessControl, AccessError, type Peer } from '../access.js';
import { EgoOwners } from '../ego-owners.js';

export const WS_PATH = '/ws/vils/stream';
export const MAX_MESSAGE_BYTES = 64 * 1024;

const ajv = new Ajv({ allErrors: false, strict: false });
const validatePing = ajv.compile(pingSchema);
const validateClockReply = ajv.compile(clockReplySchema);
const validateSignalInput = ajv.compile(signalInputSchema);
const validateSignalRelease = ajv.compile(signalReleaseSchema);
/** binary clients get signal_states at least this often, changed or not [s of wall time] */
const SIGNAL_STATES_REFRESH_MS = 1000;

interface Arrival {
  text: string;
  /** epoch seconds */
  wall: number;
  /** epoch seconds on the runner's clock (the server clock fixes are placed on) */
  epoch: number;
  /** simulation time */
  sim: number;
}

export async function streamPlugin(app: FastifyInstance, opts: { host: SceneHost; access?: AccessControl }): Promise<void> {
  const { host } = opts;
  const { clients, counters, inputs } = host;
  const access = opts.access ?? new AccessControl();
  // which connection or token each ego id belongs to; free again when the scene forgets the ego
  const owners = new EgoOwners();
  host.scene.on((e) => {
    if (e.type === 'ego_forgotten') {
      owners.forget(e.egoId);
      host.egoClocks.forget(e.egoId);
    }
  });
  // the connections that drive egos, probed for their clocks about once a second (on the runner's clock)
  const drivers = new Map<ClientChannel, { egos: Set<string>; sent: number[]; lastProbe: number }>();
  const probeSink: FrameSink = {
    publish() {
      if (drivers.size === 0) return;
      const now = host.runner.epochNow();
      for (const [c, d] of drivers) {
        if (now - d.lastProbe < CLOCK_PROBE_PERIOD_S) continue;
        d.lastProbe = now;
        d.sent.push(now);
        if (d.sent.length > CLOCK_PROBES_KEPT) d.sent.shift();
        c.sendReply(JSON.stringify({ type: 'clock_probe', server_time: now }));
      }
    },
  };
  host.runner.addSink(probeSink);
  app.addHook('onClose', async () => host.runner.removeSink(probeSink));
  const log = app.log;
  // binary clients: signal_states when a state changes (their frames carry no signals)
  const binaryClients = new Map<ClientChannel, { key: string | null; at: number }>();
  const signalSink: FrameSink = {
    publish(frame: PublishedFrame) {
      if (binaryClients.size === 0) return;
      const signals = host.frameSignals(frame);
      const key = signals.map((g) => `${g.code}${g.source[0]}`).join('');
      const now = performance.now();
      let text: Buffer | null = null;
      for (const [c, last] of binaryClients) {
        if (last.key === key && (signals.length === 0 || now - last.at < SIGNAL_STATES_REFRESH_MS)) continue;
        text ??= Buffer.from(JSON.stringify({ type: 'signal_states', timestamp: frame.wallTimeS, sim_time_s: Math.round(frame.snapshot.time * 1000) / 1000, signals }), 'utf8');
        c.send(text);
        last.key = key;
        last.at = now;
      }
    },
  };
  host.runner.addSink(signalSink);
  app.addHook('onClose', async () => host.runner.removeSink(signalSink));
  app.get(WS_PATH, { websocket: true }, (socket: WebSocket, req) => {
    const address = req.ip;
    const peer: Peer = req.vilsPeer ?? access.identify(undefined, undefined, address);
    // npc_states as JSON text (the default) or as binary frames (wire-binary.ts): ?format=binary
    const format = (req.query as { format?: unknown } | undefined)?.format ?? 'json';
    if (format !== 'json' && format !== 'binary') {
      socket.close(1008, `unknown format "${String(format).slice(0, 40)}": use json or binary`);
      return;
    }
    let limiter: ReturnType<AccessControl['connect']>;
    try {
      limiter = access.connect(peer);
    } catch (err) {
      if (!(err instanceof AccessError)) throw err;
      // full (counted by connect): 1013 Try Again Later; else a policy refusal
      if (err.statusCode !== 503) access.refused.forbidden++;
      // (at most once in 10 s per client: 2,000 connections from 40 addresses would otherwise write a line each)
      if (access.logNow(`stream refused ${peer.key}`)) log.warn({ scene: host.name, client: peer.label }, `stream connection refused: ${err.message} (said at most once in 10 s per client; refusals are counted in /api/status access.refused)`);
      socket.close(err.statusCode === 503 ? 1013 : 1008, err.message.slice(0, 120));
      return;
    }
    const channel = clients.add(socket);
    channel.binary = format === 'binary';
    if (channel.binary) binaryClients.set(channel, { key: null, at: -Infinity });
    const who = `client ${channel.id} (${peer.label}, ${peer.role ?? 'no role'})`;
    log.info({ scene: host.name, client: channel.id, peer: peer.label, role: peer.role }, `${who} connected to the stream${host.name === 'default' ? '' : ` of scene ${host.name}`}`);
    const reply = (c: ClientChannel, obj: unknown) => c.sendReply(JSON.stringify(obj));
    // rate limiting: drops since the client was last told, when it was told, whether the connection is closing
    let droppedUntold = 0;
    let busyUntold = 0;
    let toldAt = -Infinity;
    let closing = false;
    let clockTold = false;
    let arrival: Arrival = { text: '', wall: 0, epoch: 0, sim: 0 };
    // every message as received, with its arrival time and what became of it (for the recording)
    const note = (a: Arrival, outcome: string) => {
      if (a.text) inputs.received({ kind: 'stream', text: a.text, client: channel.id, arrivalWall: a.wall, simTime: a.sim, outcome });
    };
    const fail = (error: string, a: Arrival = arrival) => {
      counters.errors++;
      note(a, error);
      channel.sendError(error);
    };
    const limits = access.settings.limits;
    socket.on('message', (data, isBinary) => {
      counters.messages++;
      if (closing) return;
      // before anything else (no parse, no copy): over the limit the message is dropped and counted
      const bytes = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
      const admit = limiter.admit(bytes);
      if (admit !== 'ok') {
        droppedUntold++;
        if (admit === 'busy') busyUntold++;
        if (admit === 'close') {
          closing = true;
          access.refused.closed_1008++;
          log.warn({ scene: host.name, client: channel.id, peer: peer.label, dropped: limiter.dropped }, `${who} closed (1008): flooding, ${limiter.dropped} messages over the rate limit dropped`);
          socket.close(1008, `rate limit exceeded: too many messages; reconnect in ${limits.ws_flood_ban_s} s`);
          // read nothing more from it (the close frame still goes out); gone for good shortly after
          (socket as unknown as { _socket?: { pause(): void } })._socket?.pause();
          setTimeout(() => socket.terminate(), 250).unref();
          return;
        }
        const now = performance.now();
        if (now - toldAt >= 1000) {
          if (toldAt === -Infinity) log.warn({ scene: host.name, client: channel.id, peer: peer.label }, `${who}: messages dropped, ${admit === 'busy' ? "over the server's parse budget (limits.ws_server)" : 'over the rate limit'}`);
          toldAt = now;
          const own = droppedUntold - busyUntold;
          if (own > 0) channel.sendNotice(`rate limit: ${own} message${own === 1 ? '' : 's'} dropped (at most ${limits.ws_connection.messages_per_s} messages and ${limits.ws_connection.bytes_per_s} bytes a second per connection, bursts of ${limits.ws_connection.messages_burst}); keep flooding and the connection is closed (1008)`);
          if (busyUntold > 0) channel.sendNotice(`server busy: ${busyUntold} message${busyUntold === 1 ? '' : 's'} dropped (the server parses at most ${limits.ws_server.messages_per_s} messages and ${limits.ws_server.bytes_per_s} bytes a second from all clients together, beyond each connection's reserve of ${limits.ws_reserved.messages_per_s} messages a second); send less often`);
          droppedUntold = 0;
          busyUntold = 0;
        }
        return;
      }
      arrival = { text: '', wall: Date.now() / 1000, epoch: host.runner.epochNow(), sim: host.runner.simNow() };
      if (isBinary) return fail('binary messages are not supported: send JSON text');
      let msg: unknown;
      try {
        arrival.text = data.toString();
        msg = JSON.parse(arrival.text);
      } catch (err) {
        return fail(`malformed JSON: ${(err as Error).message}`);
      }
      if (typeof msg !== 'object' || msg === null || Array.isArray(msg) || typeof (msg as { type?: unknown }).type !== 'string') {
        return fail('a message must be a JSON object with a string "type"');
      }
      const type = (msg as { type: string }).type;
      if (type === 'ego_state') {
        const adm = admitEgoState(msg, { sender: peer.token?.name ?? 'this client', role: peer.role, mayDrive: access.may(peer, 'driver'), mayDriveEgo: (id) => access.mayDrive(peer, id) });
        if (!adm.ok) return fail(adm.error);
        const egoId = adm.egoId;
        const claim = owners.claim(egoId, peer, channel.id, host.scene.hasEgo(egoId));
        if (claim.refused) return fail(`ego_state: ${claim.refused}; use another ego_id`);
        const a = arrival;
        // where the fix belongs in time: measured from its stamp on the ego's clock (ego-clocks.ts)
        const placed = host.egoClocks.place(egoId, a.epoch, adm.timestamp);
        if (!placed.ok) {
          if (claim.fresh && !host.scene.hasEgo(egoId)) owners.forget(egoId);
          // out of order: dropped and counted (the ego's out_of_order), not answered: a reordering link would flood its client
          if (placed.decision.reason === 'out_of_order') return note(a, placed.decision.message);
          return fail(`ego_state: ${placed.decision.message}`);
        }
        let driving = drivers.get(channel);
        if (!driving) drivers.set(channel, (driving = { egos: new Set(), sent: [], lastProbe: -Infinity }));
        driving.egos.add(egoId);
        const notice = clockTold ? null : clockNotice(placed.timing, host.serving.clock_offset_s);
        if (notice) {
          clockTold = true;
          log.warn({ scene: host.name, client: channel.id, peer: peer.label, offset_s: notice.offsetS, clock_source: placed.timing.source }, `${who}: its timestamps are ${notice.off} the server clock (${placed.timing.source})`);
          channel.sendNotice(notice.text);
        }
        const failed = (err: unknown) => {
          if (claim.fresh && !host.scene.hasEgo(egoId)) owners.forget(egoId);
          if (err instanceof InputError) return fail(`ego_state: ${err.message}`, a);
          // never let one message take the process down: report it, keep the connection
          app.log.error({ err }, 'ego_state handling failed');
          return fail(`ego_state: internal error (${(err as Error).message})`, a);
        };
        try {
          // stamped with the simulation time it arrived at and its latency; applied between policy steps (inputs.ts)
          const report = egoReportFromGnss(host.geo, egoId, adm.data, adm.timestamp);
          if (adm.timestamp !== undefined) report.timing = placed.timing;
          inputs.updateEgo(report, a.sim).then(() => note(a, 'ok'), failed);
        } catch (err) {
          return failed(err);
        }
        return;
      }
      if (type === 'clock_reply') {
        if (!validateClockReply(msg)) return fail(`clock_reply: ${describeSchemaErrors(validateClockReply.errors)}`);
        const m = msg as { server_time: number; received: number; sent?: number };
        const d = drivers.get(channel);
        if (!d || !d.sent.includes(m.server_time)) return fail('clock_reply: no clock_probe with that server_time was sent to this connection lately (echo the probe\'s server_time unchanged)');
        d.sent.splice(d.sent.indexOf(m.server_time), 1);
        host.egoClocks.probe(d.egos, m.server_time, m.received, m.sent ?? m.received, arrival.epoch);
        return note(arrival, 'ok');
      }
      if (type === 'ping') {
        if (!validatePing(msg)) return fail(`ping: ${describeSchemaErrors(validatePing.errors)}`);
        return reply(channel, { type: 'pong', timestamp: Date.now() / 1000 });
      }
      if (type === 'signal_input' || type === 'signal_release') {
        const validate = type === 'signal_input' ? validateSignalInput : validateSignalRelease;
        if (!validate(msg)) return fail(`${type}: ${describeSchemaErrors(validate.errors)}`);
        if (!access.may(peer, 'operator')) return fail(`${type}: ${peer.token?.name ?? 'this client'} may not set signals (${peer.role ?? 'no'} role): that needs an operator token`);
        const a = arrival;
        const failed = (err: unknown) => {
          if (err instanceof InputError) return fail(`${type}: ${err.message}`, a);
          app.log.error({ err }, `${type} handling failed`);
          return fail(`${type}: internal error (${(err as Error).message})`, a);
        };
        try {
          if (type === 'signal_input') {
            const d = (msg as { data: LiveSignalInput }).data;
            host.signals.setLive(d, `stream client ${channel.id}, ${peer.label}`).then((r) => {
              note(a, 'ok');
              reply(channel, { type: 'signal_ack', input: 'signal_input', data: r });
            }, failed);
          } else {
            const d = (msg as { data: { junction: string } }).data;
            host.signals.release(d.junction).then((r) => {
              note(a, 'ok');
              reply(channel, { type: 'signal_ack', input: 'signal_release', data: r });
            }, failed);
          }
        } catch (err) {
          return failed(err);
        }
        return;
      }
      return fail(`unknown message type "${type.slice(0, 64)}" (expected ego_state, clock_reply, ping, signal_input or signal_release)`);
    });
    let gone = false;
    const left = (how: string) => {
      if (gone) return;
      gone = true;
      clients.remove(channel);
      binaryClients.delete(channel);
      // a test attempt on a car whose connection closed cannot be judged on: it ends there, invalid
      for (const egoId of drivers.get(channel)?.egos ?? []) host.story?.carDisconnected(egoId);
      drivers.delete(channel);
      owners.disconnected(channel.id);
      limiter.release();
      log.info({ scene: host.name, client: channel.id, peer: peer.label, frames_sent: channel.sent, frames_dropped: channel.dropped, rate_limited: limiter.dropped, over_server_budget: limiter.busy }, `${who} disconnected (${how}; ${channel.sent} frames sent, ${channel.dropped} dropped as it was slow${limiter.dropped ? `, ${limiter.dropped} messages over the rate limit` : ''}${limiter.busy ? `, ${limiter.busy} over the server's parse budget` : ''})`);
    };
    socket.on('close', (code: number) => left(`code ${code}`));
    socket.on('error', (err: Error & { code?: string }) => {
      // a frame over 64 KiB: ws closes the connection (1009); a warning, not a failure of the server
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') log.warn({ scene: host.name, client: channel.id, peer: peer.label }, `${who}: message over ${MAX_MESSAGE_BYTES} bytes, connection closed (1009)`);
      else log.warn({ scene: host.name, client: channel.id, peer: peer.label, error: err.message }, `${who}: connection error: ${err.message}`);
      left(err.message);
    });
  });
}
