/**
 * The published protocol schemas (docs/protocol/*.schema.json) are what client authors code against, so every
 * message the server actually sends on /ws/vils/stream must match the schema of its `type`. Other tests check
 * one frame of one kind, or compare the files with src/server/schemas.ts; this one drives a session that makes
 * the server send each kind it has (npc_states stopped, running and paused, with egos and signals, live
 * signals; pong; signal_ack for input and release; every road to an error reply, the clock and rate-limit
 * notices and coalesced errors; signal_states to a binary client; and a recording played back), records
 * every message as it came off the socket, and validates all of them with ajv (draft 2020-12) against the
 * files as published. A message whose type has no schema file fails the test by name.
 *
 * Nothing is paced by sleeps: each step waits for the message the server decides to send, with generous
 * timeouts, so a loaded machine only makes it slower.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { VilsServer } from '../../src/server/app.js';
import { accessSettings } from '../../src/server/access.js';
import { createPlayback, type Playback } from '../../src/server/playback.js';
import { decodeNpcStatesBinary } from '../../src/server/wire-binary.js';
import { startServer, TestClient } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

type Json = Record<string, any>;

const SCHEMA_DIR = join(PROJECT_ROOT, 'docs', 'protocol');
/** frames come at 10 Hz (once a second while paused or stopped): a wait this long only fails if the server never sends it */
const WAIT_MS = 30_000;
/** per connection, never refilled in practice: what the flooding client gets past the limit is exactly this */
const BURST = 100;
const FLOOD = BURST + 30;

/** Every message as it came off a socket: `from` says which client (and server) got it. */
interface Received {
  from: string;
  text?: string;
  binary?: Buffer;
}
const received: Received[] = [];

function record(ws: WebSocket, from: string): void {
  ws.on('message', (data, isBinary) => {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
    received.push(isBinary ? { from, binary: buf } : { from, text: buf.toString('utf8') });
  });
}

/** The next text message on a raw socket matching `pred` (for the binary client, which TestClient cannot parse). */
function nextText(ws: WebSocket, pred: (m: Json) => boolean, timeoutMs = WAIT_MS): Promise<Json> {
  return new Promise((resolve, reject) => {
    const on = (data: WebSocket.RawData, isBinary: boolean) => {
      if (isBinary) return;
      let m: Json;
      try {
        m = JSON.parse(data.toString()) as Json;
      } catch {
        return; // reported by the validation, not here
      }
      if (!pred(m)) return;
      clearTimeout(timer);
      ws.off('message', on);
      resolve(m);
    };
    const timer = setTimeout(() => {
      ws.off('message', on);
      reject(new Error(`no matching text message within ${timeoutMs} ms`));
    }, timeoutMs);
    ws.on('message', on);
  });
}

const post = async (base: string, path: string) => {
  const res = await fetch(base + path, { method: 'POST' });
  expect(res.status, `POST ${path}`).toBe(200);
};

const group = (frame: Json, id: string): Json | undefined => (frame.signals as Json[] | undefined)?.find((g) => g.id === id);

describe('every message on /ws/vils/stream matches its published schema', () => {
  const validators = new Map<string, ValidateFunction>();
  let server: VilsServer;
  let url: string;
  let wsUrl: string;
  let recordingDir: string;
  let playback: Playback | null = null;
  const sockets: WebSocket[] = [];
  let closed = false;
  const closeServer = async () => {
    if (closed) return;
    closed = true;
    await server?.close();
  };
  const client = async (name: string, query = ''): Promise<TestClient> => {
    const c = new TestClient(wsUrl + query);
    record(c.ws, name);
    sockets.push(c.ws);
    await c.opened();
    return c;
  };
  /** Sends and waits for the reply (registered before sending, so a quick reply is not missed). */
  const ask = (c: TestClient, msg: unknown, pred: (m: Json) => boolean, timeoutMs = WAIT_MS) => {
    const reply = c.next(pred, timeoutMs);
    c.send(msg);
    return reply;
  };
  let main: TestClient;
  let binary: WebSocket;

  beforeAll(async () => {
    for (const file of readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.schema.json'))) {
      // a fresh instance per file: the schemas stand alone, as a client author would load them
      const ajv = new Ajv2020({ allErrors: true, strict: true });
      validators.set(file.slice(0, -'.schema.json'.length), ajv.compile(JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as object));
    }
    recordingDir = mkdtempSync(join(tmpdir(), 'vils-frame-schemas-'));
    ({ server, url, wsUrl } = await startServer({
      // not started: the first frames say "stopped"
      autostart: false,
      // fixes are judged on the server clock: a minute of margin keeps a loaded machine from turning them stale
      config: { npc_target: 4, ego_timeout_s: 60, ego_forget_s: 600 },
      // no tokens (every client may drive and set signals, whatever the environment says); a per-connection
      // burst that no step but the flood reaches, refilled so slowly that the flood's overflow is certain
      access: accessSettings({ limits: { ws_connection: { messages_per_s: 0.001, messages_burst: BURST } } }, {}),
      // played back at the end: frames rebuilt from a recording go out on the same path
      recording: { dir: recordingDir },
    }));
  });

  afterAll(async () => {
    for (const ws of sockets) ws.close();
    await playback?.close();
    await closeServer();
    if (recordingDir) rmSync(recordingDir, { recursive: true, force: true });
  });

  it('the published schemas compile as draft 2020-12, each named by its $id', () => {
    expect([...validators.keys()].sort()).toEqual(expect.arrayContaining(['error', 'npc_states', 'pong', 'signal_ack', 'signal_states']));
    for (const [name, v] of validators) expect((v.schema as Json).$id, name).toBe(name);
  });

  it('npc_states while stopped, then running on the signalised demo track', async () => {
    main = await client('main');
    binary = new WebSocket(`${wsUrl}?format=binary`);
    record(binary, 'binary');
    sockets.push(binary);
    await new Promise<void>((resolve, reject) => {
      binary.once('open', () => resolve());
      binary.once('error', reject);
    });
    // binary clients get signal_states as JSON text (their frames carry no signals): the first with the first frame
    const states = nextText(binary, (m) => m.type === 'signal_states');
    await main.next((m) => m.type === 'npc_states' && m.state === 'stopped', WAIT_MS);
    await post(url, '/api/start');
    const f = await main.next((m) => m.type === 'npc_states' && m.state === 'running' && m.npcs.length > 0 && m.signals?.length > 0, WAIT_MS);
    expect(f.signals.map((g: Json) => g.id)).toEqual(['J1.A', 'J1.B']);
    expect((await states).signals.map((g: Json) => g.id)).toEqual(['J1.A', 'J1.B']);
  });

  it('egos in the frames: with a client timestamp, without one, with a size', async () => {
    const ts = server.host.runner.epochNow();
    main.send({ type: 'ego_state', timestamp: ts, data: { lat: 37.3645, lon: 126.7239, heading: 45, speed: 5 } });
    main.send({ type: 'ego_state', ego_id: 'ego-2', data: { lat: 37.3646, lon: 126.7241, heading: 90, speed: 0, length: 5.2, width: 2.1 } });
    const f = await main.next((m) => m.type === 'npc_states' && m.egos?.some((e: Json) => e.ego_id === 'ego' && e.timestamp === ts) && m.egos.some((e: Json) => e.ego_id === 'ego-2'), WAIT_MS);
    expect(f.egos.find((e: Json) => e.ego_id === 'ego-2')).toMatchObject({ timestamp: null, length: 5.2, width: 2.1 });
  });

  it('pong, with and without the client timestamp', async () => {
    expect(await ask(main, { type: 'ping', timestamp: 1 }, (m) => m.type === 'pong')).toMatchObject({ timestamp: expect.any(Number) });
    expect(await ask(main, { type: 'ping' }, (m) => m.type === 'pong')).toMatchObject({ timestamp: expect.any(Number) });
  });

  it('error replies on every road: parse, shape, validation, refusal by the scene, binary input', async () => {
    // one at a time, each awaited: none is coalesced, so each reply can be matched to its cause
    const cases: Array<[unknown, RegExp]> = [
      ['{"type": "ping"', /^malformed JSON/],
      ['[1, 2, 3]', /^a message must be a JSON object with a string "type"/],
      [{ type: 'hello' }, /^unknown message type "hello"/],
      [{ type: 'ego_state', data: { lat: 37.3645, lon: 126.7239, heading: 0, speed: 500 } }, /^ego_state: data\.speed must be <= 100/],
      [{ type: 'ego_state', data: { lat: 37.3645, lon: 126.7239, heading: 0, speed: 1, colour: 'red' } }, /^ego_state: data: unknown field "colour"/],
      [{ type: 'ping', timestamp: 'now' }, /^ping: timestamp must be number/],
      // refused by the scene (asynchronously, between steps)
      [{ type: 'ego_state', ego_id: 'far', data: { lat: 38.5, lon: 126.7239, heading: 0, speed: 1 } }, /^ego_state: .*outside the map area/],
      [{ type: 'signal_input', data: { junction: 'J1', states: { 'J1.A': 'G', 'J1.B': 'G' } } }, /^signal_input: refused: .*conflict/],
      [{ type: 'signal_input', data: { junction: 'J7', phase: 0 } }, /^signal_input: unknown junction "J7"/],
      [{ type: 'signal_release', data: { junction: 'J7' } }, /^signal_release: unknown junction "J7"/],
    ];
    for (const [msg, re] of cases) expect((await ask(main, msg, (m) => m.type === 'error')).error, JSON.stringify(msg)).toMatch(re);
    const reply = main.next((m) => m.type === 'error');
    main.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await reply).error).toMatch(/^binary messages are not supported/);
  });

  it('the clock notice, a stale fix and an ego owned by another connection', async () => {
    const late = await client('late');
    // half a minute behind: told once, still used (ego_timeout_s is a minute)
    const behind = server.host.runner.epochNow() - 30;
    const notice = await ask(late, { type: 'ego_state', ego_id: 'late', timestamp: behind, data: { lat: 37.3645, lon: 126.7242, heading: 0, speed: 2 } }, (m) => m.type === 'error');
    expect(notice.error).toMatch(/^clock: your timestamps are \d+(\.\d+)? s behind the server's clock/);
    await late.next((m) => m.type === 'npc_states' && m.egos?.some((e: Json) => e.ego_id === 'late' && e.timestamp === behind), WAIT_MS);
    const stale = await ask(late, { type: 'ego_state', ego_id: 'late', timestamp: behind - 3600, data: { lat: 37.3645, lon: 126.7242, heading: 0, speed: 2 } }, (m) => m.type === 'error');
    expect(stale.error).toMatch(/^ego_state: stale fix/);
    const owned = await ask(late, { type: 'ego_state', data: { lat: 37.3645, lon: 126.7242, heading: 0, speed: 2 } }, (m) => m.type === 'error');
    expect(owned.error).toMatch(/^ego_state: .*use another ego_id/);
  });

  it('signal_ack for signal_input (states and phase) and signal_release (released or not); live states in the frames', async () => {
    const ack = await ask(main, { type: 'signal_input', data: { junction: 'J1', states: { 'J1.B': 'G' }, timeout_s: 60 } }, (m) => m.type === 'signal_ack');
    expect(ack).toMatchObject({ input: 'signal_input', data: { junction: 'J1', states: { 'J1.A': 'r', 'J1.B': 'G' }, until_s: expect.any(Number), clearance: expect.any(Boolean) } });
    // once the clearances have run (simulation time, at most a yellow and an all-red), the groups are driven live
    const live = await main.next((m) => m.type === 'npc_states' && group(m, 'J1.A')?.source === 'live' && group(m, 'J1.B')?.source === 'live', WAIT_MS);
    expect(group(live, 'J1.B')).toMatchObject({ code: 'G', time_to_change_s: null });
    const phase = await ask(main, { type: 'signal_input', data: { junction: 'J1', phase: 0, timeout_s: 60 } }, (m) => m.type === 'signal_ack');
    expect(phase).toMatchObject({ input: 'signal_input', data: { junction: 'J1' } });
    expect(await ask(main, { type: 'signal_release', data: { junction: 'J1' } }, (m) => m.type === 'signal_ack')).toMatchObject({ input: 'signal_release', data: { junction: 'J1', released: true } });
    expect(await ask(main, { type: 'signal_release', data: { junction: 'J1' } }, (m) => m.type === 'signal_ack')).toMatchObject({ input: 'signal_release', data: { junction: 'J1', released: false } });
  });

  it('npc_states while paused, then running again', async () => {
    await post(url, '/api/pause');
    const paused = await main.next((m) => m.type === 'npc_states' && m.state === 'paused', WAIT_MS);
    expect(paused.egos.length).toBeGreaterThan(0);
    await post(url, '/api/start');
    await main.next((m) => m.type === 'npc_states' && m.state === 'running', WAIT_MS);
  });

  it('a flood: errors one by one or coalesced, every admitted message accounted for, and the rate-limit notice', async () => {
    const flood = await client('flood');
    const notice = (m: Json) => m.type === 'error' && /^rate limit: /.test(m.error);
    // a coalesced line ("N more errors") stands for more_errors errors not sent one by one
    const counted = () => flood.messages.filter((m) => m.type === 'error' && !notice(m)).reduce((n, m) => n + (m.more_errors ?? 1), 0);
    const told = flood.next(notice, WAIT_MS);
    const all = flood.next(() => counted() >= BURST, WAIT_MS);
    for (let i = 0; i < FLOOD; i++) flood.send('not json');
    expect((await told).error).toMatch(/^rate limit: \d+ messages? dropped/);
    await all;
    expect(counted()).toBe(BURST);
    // whether replies piled up past MAX_REPLIES (and were coalesced) depends on the socket, not on the server's
    // rules: not asserted, but any such line is validated with the rest
    for (const m of flood.messages.filter((x) => x.more_errors !== undefined)) expect(m.error).toMatch(new RegExp(`^${m.more_errors} more errors? \\(the last: malformed JSON`));
  });

  it('a recording played back: npc_states rebuilt from it, and an error for any input', async () => {
    await closeServer();
    const file = join(recordingDir, readdirSync(recordingDir)[0]);
    // looped, so a client connecting at any moment sees the frames with egos and signals soon
    playback = await createPlayback(file, { speed: 4, loop: true, logLevel: false });
    const address = await playback.app.listen({ port: 0, host: '127.0.0.1' });
    const c = new TestClient(`${address.replace(/^http/, 'ws')}/ws/vils/stream`);
    record(c.ws, 'playback');
    sockets.push(c.ws);
    await c.opened();
    await c.next((m) => m.type === 'npc_states' && m.egos?.length > 0 && m.signals?.length > 0 && m.npcs.length > 0, WAIT_MS);
    // the playback server queues its error replies with the frames, and a slow client's oldest frame is
    // dropped: on a stalled machine a reply can go that way, so ask again until one comes through
    let reply: Json | null = null;
    for (let attempt = 0; attempt < 5 && !reply; attempt++) reply = await ask(c, { type: 'ping' }, (m) => m.type === 'error', WAIT_MS / 5).catch(() => null);
    expect(reply?.error).toMatch(/playing a recording: inputs are ignored/);
    c.close();
    await playback.close();
    playback = null;
  });

  it('every message received validates against the schema of its type; each kind was seen', async () => {
    for (const ws of sockets) ws.close();
    const problems: string[] = [];
    const messages: Array<{ from: string; m: Json }> = [];
    let binaryFrames = 0;
    const check = (from: string, m: unknown, what: string) => {
      const type = (m as Json | null)?.type;
      const v = typeof type === 'string' ? validators.get(type) : undefined;
      if (!v) return problems.push(`${from}: ${typeof type === 'string' ? `type "${type}" has no schema file in docs/protocol` : 'no string "type"'}: ${what.slice(0, 300)}`);
      if (!v(m)) problems.push(`${from}: ${type} does not match docs/protocol/${type}.schema.json: ${JSON.stringify(v.errors?.slice(0, 5))}\n  message: ${what.slice(0, 600)}`);
    };
    for (const r of received) {
      if (r.binary) {
        // not JSON on the wire, but decoded it claims to be an npc_states frame: hold it to the same schema
        binaryFrames++;
        let f: unknown;
        try {
          f = decodeNpcStatesBinary(r.binary);
        } catch (err) {
          problems.push(`${r.from}: a binary message that is not an npc_states frame (${(err as Error).message})`);
          continue;
        }
        check(`${r.from} (binary, decoded)`, f, JSON.stringify(f));
        continue;
      }
      let m: unknown;
      try {
        m = JSON.parse(r.text!);
      } catch (err) {
        problems.push(`${r.from}: a text message that is not JSON (${(err as Error).message}): ${r.text!.slice(0, 200)}`);
        continue;
      }
      check(r.from, m, r.text!);
      if (m && typeof m === 'object') messages.push({ from: r.from, m: m as Json });
    }
    expect(problems).toEqual([]);

    const live = messages.filter((x) => x.from !== 'playback');
    const errorMatching = (re: RegExp) => live.some(({ m }) => m.type === 'error' && re.test(m.error));
    const frames = live.filter(({ m }) => m.type === 'npc_states').map(({ m }) => m);
    const seen: Record<string, boolean> = {
      'npc_states stopped': frames.some((f) => f.state === 'stopped'),
      'npc_states running, with NPCs and signals': frames.some((f) => f.state === 'running' && f.npcs.length > 0 && f.signals?.length > 0),
      'npc_states paused': frames.some((f) => f.state === 'paused'),
      'npc_states with an ego with a client timestamp': frames.some((f) => f.egos?.some((e: Json) => typeof e.timestamp === 'number')),
      'npc_states with an ego without one (null)': frames.some((f) => f.egos?.some((e: Json) => e.timestamp === null)),
      'npc_states with a live signal group': frames.some((f) => f.signals?.some((g: Json) => g.source === 'live')),
      'npc_states as binary frames': binaryFrames > 0,
      pong: live.some(({ m }) => m.type === 'pong'),
      'signal_ack of signal_input': live.some(({ m }) => m.type === 'signal_ack' && m.input === 'signal_input'),
      'signal_ack of signal_release, released': live.some(({ m }) => m.type === 'signal_ack' && m.input === 'signal_release' && m.data?.released === true),
      'signal_ack of signal_release, nothing to release': live.some(({ m }) => m.type === 'signal_ack' && m.input === 'signal_release' && m.data?.released === false),
      'signal_states to the binary client': live.some(({ from, m }) => from === 'binary' && m.type === 'signal_states'),
      'error: malformed JSON': errorMatching(/^malformed JSON/),
      'error: unknown type': errorMatching(/^unknown message type/),
      'error: out of range': errorMatching(/must be <= 100/),
      'error: refused by the scene': errorMatching(/outside the map area/),
      'error: binary input': errorMatching(/^binary messages/),
      'error (notice): clock': errorMatching(/^clock: /),
      'error (notice): rate limit': errorMatching(/^rate limit: /),
      'playback npc_states': messages.some(({ from, m }) => from === 'playback' && m.type === 'npc_states'),
      'playback error': messages.some(({ from, m }) => from === 'playback' && m.type === 'error'),
    };
    expect(Object.entries(seen).filter(([, ok]) => !ok).map(([kind]) => kind)).toEqual([]);
  });
});
