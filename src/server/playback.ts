/**
 * Playing a recording back to clients as if live (`vils replay <file> --play [--speed N]`): the recorded
 * frames (exact NPC states, egos) go out at their recorded pace (× speed) through the same paths as a live
 * scene — npc_states on /ws/vils/stream, the Foxglove channels on /foxglove — stamped with the current wall
 * clock. Inputs are refused with an error (a recording cannot be steered); GET /api/status shows the position.
 * The web map is served as by `vils serve` (GET / and its files, GET /api/map from the recorded map; its
 * controls that change the scene are answered with errors, as the stream's inputs are).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import type { WebSocket } from 'ws';
import { GeoFrame } from '../geo/frame.js';
import { parseMapJson, type LoadedMap } from '../map/scene-json.js';
import { decodeJson, readSession, sessionSegments } from '../record/reader.js';
import { frameSnapshot, parseSessionInfo, recordedSignalGroups, type SessionInfo } from '../record/replay.js';
import type { FrameRecord } from '../record/log.js';
import { ClientRegistry } from './clients.js';
import { FoxgloveChannels, foxglovePlugin, handleProtocols } from './plugins/foxglove.js';
import type { PublishedFrame } from '../session/runner.js';
import { MAX_MESSAGE_BYTES, WS_PATH } from './plugins/stream.js';
import { mapPlugin } from './plugins/map.js';
import { loadWebBundle, webPlugin, type WebBundle } from './plugins/web.js';
import { mapBounds } from '../scene/scene.js';
import type { SceneHost } from './host.js';
import { buildNpcStatesFrame } from './wire.js';
import { createSystemClock, type Clock } from '../time/clock.js';
import { installBodyPolicy } from './plugins/body-policy.js';
import { wsErrorHandler } from './ws-errors.js';

export interface PlaybackOptions {
  speed?: number;
  /** start again at the end */
  loop?: boolean;
  logLevel?: string | false;
  /** the web map's files (default: the built bundle, dist/web) */
  web?: WebBundle;
  /** the clock frames are paced on (default: the system clock, timers only) */
  clock?: Clock;
}

export interface Playback {
  app: FastifyInstance;
  session: SessionInfo;
  /** resolves when the recording has been played (never with loop) */
  done: Promise<void>;
  framesSent(): number;
  close(): Promise<void>;
}

async function readHeader(files: string[]): Promise<{ session: SessionInfo; map: LoadedMap }> {
  let meta: Map<string, string> | null = null;
  let mapBytes: Uint8Array | null = null;
  for await (const item of readSession(files.slice(0, 1), { topics: new Set() })) {
    if (item.type === 'metadata' && item.name === 'vils.session') meta = item.metadata;
    if (item.type === 'attachment' && item.name === 'map.json') mapBytes = item.data;
    if (meta && mapBytes) break;
  }
  if (!meta || !mapBytes) throw new Error(`${files[0]}: not a VILS recording (no vils.session metadata or map)`);
  const session = parseSessionInfo(meta);
  return { session, map: parseMapJson(JSON.parse(Buffer.from(mapBytes).toString('utf8')), session.mapLabel) };
}

export async function createPlayback(path: string, opts: PlaybackOptions = {}): Promise<Playback> {
  const speed = opts.speed ?? 1;
  if (!(speed > 0 && speed <= 1000)) throw new RangeError(`--speed must be in (0, 1000], got ${speed}`);
  const files = sessionSegments(path);
  const { session, map } = await readHeader(files);
  const geo = new GeoFrame(session.origin);
  const app = Fastify({ logger: opts.logLevel === false ? false : { level: opts.logLevel ?? 'info' }, bodyLimit: MAX_MESSAGE_BYTES });
  // the body policy of every VILS server (its routes take no body: any is refused, naming the limit)
  installBodyPolicy(app);
  await app.register(websocket, { options: { maxPayload: MAX_MESSAGE_BYTES, handleProtocols }, errorHandler: (err: Error & { code?: string }, socket, req) => wsErrorHandler(err, socket, req.log) });
  const clients = new ClientRegistry(() => 4);
  let textFrame: PublishedFrame | null = null;
  let text = '';
  // the signal groups the recording names (ids, stop lines); none in a recording made before signals were
  const groups = recordedSignalGroups(session);
  const source = {
    name: session.scene, geo, map,
    stopLines: new Map([...groups.values()].map((g) => [g.id, g.stop_line.map(([x, y]) => ({ x, y }))])),
    frameText(frame: PublishedFrame): string {
      if (textFrame !== frame) {
        text = JSON.stringify(buildNpcStatesFrame(geo, frame.snapshot, frame.state, frame.wallTimeS));
        textFrame = frame;
      }
      return text;
    },
  };
  const fox = new FoxgloveChannels(source);
  let sent = 0;
  let position = { frame: 0, sim_time_s: 0, segment: 0 };

  app.get(WS_PATH, { websocket: true }, (socket: WebSocket) => {
    const channel = clients.add(socket);
    socket.on('message', () => channel.send(JSON.stringify({ type: 'error', error: 'this server is playing a recording: inputs are ignored' })));
    socket.on('close', () => clients.remove(channel));
    socket.on('error', () => clients.remove(channel));
  });
  await app.register(foxglovePlugin, { channels: fox });
  // the web map, as `vils serve` serves it: the page, and the recorded map drawn from a stand-in scene (its
  // bounds; no traffic control, so no junction outlines: the frames still carry each signal group's state)
  const web = opts.web ?? loadWebBundle();
  if (web.missing) app.log.warn(web.missing);
  await app.register(mapPlugin, { host: { map, geo, scene: { bounds: mapBounds(map) } } as unknown as SceneHost });
  await app.register(webPlugin, { bundle: web });
  app.get('/api/health', async () => ({ status: 'ok', playback: true }));
  app.get('/api/status', async () => ({
    state: 'playback', recording: files, scene: session.scene, session_id: session.sessionId, speed, ...position,
    clients: clients.size, foxglove: fox.status(), frames_sent: sent, partial,
  }));

  let stopped = false;
  const clock = opts.clock ?? createSystemClock({ spinS: 0 });
  const stopping = new AbortController();
  /** files of the session found cut short while playing (said once each, and in /api/status) */
  const partial: string[] = [];
  const partialTold = new Set<string>();

  const play = async () => {
    do {
      // the recording's own timestamps are the schedule (its frames are not evenly spaced: pauses, rate changes)
      let first: { wall: number; at: number } | null = null;
      const onEnd = (file: string, end: { complete: boolean; trailingBytes: number }) => {
        if (end.complete || partialTold.has(file)) return;
        partialTold.add(file);
        partial.push(file);
        app.log.warn(`${file} is PARTIAL: it ends without its footer${end.trailingBytes ? ` and with ${end.trailingBytes} bytes of an unfinished record` : ''} (the recording process was killed or the file cut short); played what it holds`);
      };
      for await (const item of readSession(files, { topics: new Set(['/vils/frame']) }, onEnd)) {
        if (stopped) return;
        if (item.type !== 'message') continue;
        const rec = decodeJson<FrameRecord>(item.message.data);
        if (!first) first = { wall: rec.wall_time, at: clock.now() };
        await clock.sleepUntil(first.at + (rec.wall_time - first.wall) / speed, stopping.signal);
        if (stopped) return;
        const frame: PublishedFrame = { snapshot: frameSnapshot(rec, groups), state: rec.state, wallTimeS: (performance.timeOrigin + performance.now()) / 1000 };
        position = { frame: rec.f, sim_time_s: frame.snapshot.time, segment: item.segment };
        if (clients.size > 0) clients.broadcast(source.frameText(frame));
        fox.publish(frame);
        sent++;
      }
    } while (opts.loop && !stopped);
  };
  const done = play();

  return {
    app, session, done, framesSent: () => sent,
    async close() {
      stopped = true;
      stopping.abort();
      await done.catch(() => {});
      await fox.close();
      clients.closeAll();
      await app.close();
    },
  };
}
