// Minimal VILS client for Node.js (npm install ws): a pretend car that drives along the demo track's right lane,
// sends its GNSS state at 10 Hz, answers the server's clock probes and prints what the frames say about the NPCs
// and about its own ego. It keeps going when the server is not there yet, restarts or drops the connection: it
// says so and reconnects (0.5 s, 1 s, 2 s … at most 10 s apart). Ctrl-C stops it. `--help` for the flags.
import WebSocket from 'ws';

const USAGE = `usage: node examples/node-client.mjs [ws://localhost:8000/ws/vils/stream] [--token <token>] [--ego <ego_id>] [--seconds <s>]

A pretend car on the demo track (npm start): it starts on the right lane of the north loop, well clear of the
crossing, drives along it at 5.5 m/s and stops 30 m short of the crossing's stop line (it reads no signals), sending
its GNSS fix 10 times a second. Once a second (and whenever one of them changes) it prints the NPCs it is sent and its
own ego as the server sees it: stale, collided, where its heading comes from, the fix's latency and the clock offset.

  <url>            the server's stream [ws://localhost:8000/ws/vils/stream]
  --token <token>  a driver or operator token, when the server has tokens [VILS_TOKEN from the environment]
  --ego <ego_id>   this car's ego id, for several cars in one session [ego]
  --seconds <s>    stop after this long; exit 1 when no frame came [run until Ctrl-C]
  --help, -h       this text`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const flag = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith('--')) usageError(`${name} needs a value`);
  return args.splice(i, 2)[1];
};
function usageError(why) {
  console.error(`${why}\n\n${USAGE}`);
  process.exit(2);
}
const token = flag('--token') ?? process.env.VILS_TOKEN;
const egoId = flag('--ego') ?? 'ego';
const seconds = flag('--seconds'); // stop after this long (e.g. a tour or a script); else run until Ctrl-C
if (seconds !== undefined && !(Number(seconds) > 0)) usageError(`--seconds must be a positive number of seconds, not "${seconds}"`);
const unknown = args.filter((a) => a.startsWith('-'));
if (unknown.length > 0) usageError(`unknown flag ${unknown[0]}`);
if (args.length > 1) usageError(`one server address, not ${args.length}: ${args.join(' ')}`);
const url = args[0] ?? 'ws://localhost:8000/ws/vils/stream';
try {
  if (!/^wss?:$/.test(new URL(url).protocol)) throw new Error();
} catch {
  usageError(`"${url}" is not a ws:// or wss:// address`);
}

// The demo track's right lane around the north loop (R2, then R3 towards the crossing), every 12 m, WGS84:
// computed from maps/demo-track.json (test/cli/node-client.test.ts checks that each point lies on that lane).
// It starts 80 m from the crossing and ends 30 m before its stop line. Replace it with your car's GNSS.
const LANE = [
  [37.3650278, 126.7245093], [37.3651295, 126.7245545], [37.3652363, 126.7245744], [37.3653441, 126.7245681],
  [37.3654490, 126.7245358], [37.3655468, 126.7244788], [37.3656341, 126.7243993], [37.3657076, 126.7243002],
  [37.3657644, 126.7241852], [37.3658025, 126.7240587], [37.3658203, 126.7239253], [37.3658173, 126.7237901],
  [37.3657936, 126.7236582], [37.3657500, 126.7235344], [37.3656883, 126.7234235], [37.3656106, 126.7233297],
  [37.3655199, 126.7232564], [37.3654196, 126.7232063], [37.3653135, 126.7231813], [37.3652056, 126.7231824],
  [37.3650999, 126.7232096], [37.3650003, 126.7232618], [37.3649106, 126.7233371], [37.3648234, 126.7234441],
  [37.3647488, 126.7235422],
];
const CRUISE_MPS = 5.5;
const BRAKE_MPS2 = 2;
const M_PER_DEG_LAT = 110_996; // WGS84 at 37.4° N: close enough between points 12 m apart
const metresBetween = ([lat1, lon1], [lat2, lon2]) => {
  const north = (lat2 - lat1) * M_PER_DEG_LAT;
  const east = (lon2 - lon1) * M_PER_DEG_LAT * Math.cos((lat1 * Math.PI) / 180);
  return { north, east, d: Math.hypot(north, east) };
};
const SEGMENTS = LANE.slice(1).map((p, i) => metresBetween(LANE[i], p));
const ROUTE_M = SEGMENTS.reduce((sum, s) => sum + s.d, 0);

/** The car `s` metres along the lane: position, heading (degrees clockwise from true north), speed. */
function carAt(s) {
  const remaining = ROUTE_M - s;
  const speed = Math.min(CRUISE_MPS, Math.sqrt(2 * BRAKE_MPS2 * Math.max(0, remaining)));
  let i = 0;
  let start = 0;
  while (i < SEGMENTS.length - 1 && start + SEGMENTS[i].d < s) start += SEGMENTS[i++].d;
  const seg = SEGMENTS[i];
  const f = Math.min(1, Math.max(0, (s - start) / seg.d));
  const [lat0, lon0] = LANE[i];
  const [lat1, lon1] = LANE[i + 1];
  const heading = ((Math.atan2(seg.east, seg.north) * 180) / Math.PI + 360) % 360;
  return { lat: lat0 + f * (lat1 - lat0), lon: lon0 + f * (lon1 - lon0), heading: Number(heading.toFixed(2)), speed: Number(speed.toFixed(3)) };
}

let travelled = 0; // metres along LANE, kept across reconnections
let stoppedSaid = false;
let attempt = 0;
let frames = 0;
let stopping = false;
let current = null;

/** The server's refusals and errors, each said once, then how often it came again (not 10 lines a second). */
const repeats = new Map();
function sayOnce(text) {
  const r = repeats.get(text);
  if (r) {
    r.count++;
    return;
  }
  repeats.set(text, { count: 0, said: 0 });
  console.error(text);
}
function sayRepeats() {
  for (const [text, r] of repeats) {
    if (r.count > r.said) console.error(`  (${r.count - r.said} more time${r.count - r.said === 1 ? '' : 's'}: ${text})`);
    r.said = r.count;
  }
}
const repeatTimer = setInterval(sayRepeats, 5000);
repeatTimer.unref();

/** One line about this car as the server sees it (from the frame's `egos`). */
function egoLine(e) {
  if (!e) return `ego ${egoId}: not in the frame (not sent yet, refused or forgotten)`;
  const flags = [e.stale ? 'STALE' : 'live', e.collided ? 'COLLIDED' : 'no contact'];
  const clock = e.latency_s === undefined || e.latency_s === null ? '' :
    `; fix latency ${(e.latency_s * 1000).toFixed(0)} ms, clock offset ${e.clock_offset_s?.toFixed(3)} s (${e.clock_source})`;
  return `ego ${e.ego_id}: ${flags.join(', ')}, (${e.x.toFixed(1)}, ${e.y.toFixed(1)}) ${e.speed.toFixed(1)} m/s, heading from ${e.heading_source ?? '?'}${clock}`;
}
let lastEgoKey = '';
let lastPrinted = 0;

function connect() {
  const ws = new WebSocket(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  current = ws;
  let timer = null;
  ws.on('open', () => {
    attempt = 0;
    console.log(`connected to ${url}`);
    let last = performance.now();
    timer = setInterval(() => {
      const now = performance.now();
      travelled = Math.min(ROUTE_M, travelled + carAt(travelled).speed * ((now - last) / 1000));
      last = now;
      const car = carAt(travelled);
      if (car.speed === 0 && !stoppedSaid) {
        stoppedSaid = true;
        console.log(`stopped at the end of its lane, 30 m short of the crossing's stop line (this pretend car reads no signals)`);
      }
      // timestamp: when the fix was taken, on this machine's clock (the probes below tell the server its offset)
      ws.send(JSON.stringify({ type: 'ego_state', ego_id: egoId, timestamp: Date.now() / 1000, data: car }));
    }, 100);
  });
  ws.on('message', (data) => {
    let msg;
    try {
      msg = JSON.parse(data.toString());
    } catch {
      return;
    }
    // the server measures this client's clock against its own (so each fix is placed at the moment it was taken):
    // answer at once with the probe's server_time and this clock's time of receipt
    if (msg.type === 'clock_probe') return ws.send(JSON.stringify({ type: 'clock_reply', server_time: msg.server_time, received: Date.now() / 1000 }));
    if (msg.type === 'error') return sayOnce(`server says: ${msg.error}`);
    if (msg.type !== 'npc_states') return;
    frames++;
    const ego = (msg.egos ?? []).find((e) => e.ego_id === egoId);
    const key = ego ? `${ego.stale}${ego.collided}${ego.heading_source}` : 'none';
    const now = performance.now();
    if (key === lastEgoKey && now - lastPrinted < 1000) return;
    lastEgoKey = key;
    lastPrinted = now;
    const near = msg.npcs.slice(0, 3).map((n) => `#${n.id} (${n.x.toFixed(1)}, ${n.y.toFixed(1)}) ${n.speed.toFixed(1)} m/s`);
    console.log(`step ${msg.step}: ${msg.npcs.length} NPCs, step ${msg.metrics.total_time_ms} ms; ${near.join('; ')}`);
    console.log(`  ${egoLine(ego)}`);
  });
  // a refused connection (wrong token, another origin, a server playing a recording…): the server's reason, from
  // the HTTP reply, said once however often the reconnections are refused the same way
  ws.on('unexpected-response', (_req, res) => {
    let body = '';
    res.on('data', (d) => (body += d));
    res.on('end', () => {
      let reason = body;
      try {
        reason = JSON.parse(body).message ?? body;
      } catch { /* not JSON */ }
      sayOnce(`the server refused the connection: ${res.statusCode} ${reason}`);
      ws.emit('close', 1006, Buffer.from(''));
    });
  });
  ws.on('error', (err) => {
    // ECONNREFUSED and the like: say it in one line (the close that follows reconnects)
    sayOnce(`cannot reach ${url}: ${err.code ?? err.message}`);
  });
  let closed = false;
  ws.on('close', (code, reason) => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    if (stopping) return;
    const delay = Math.min(10_000, 500 * 2 ** attempt++);
    console.error(`connection closed (${code}${reason?.length ? `: ${reason}` : ''}); reconnecting in ${(delay / 1000).toFixed(1)} s`);
    setTimeout(connect, delay);
  });
}

function stop(why, code = 0) {
  stopping = true;
  sayRepeats();
  console.log(why);
  current?.close();
  setTimeout(() => process.exit(code), 200).unref();
}
connect();
process.on('SIGINT', () => stop('stopping (Ctrl-C)'));
// after --seconds: exit 1 when no frame ever came, so a script sees that the server was not there
if (seconds !== undefined) setTimeout(() => stop(`stopping after ${seconds} s: ${frames} frames received`, frames > 0 ? 0 : 1), Number(seconds) * 1000);
