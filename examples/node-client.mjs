// Minimal VILS client for Node.js (npm install ws): sends the ego's GNSS state at 10 Hz and prints the NPCs.
// It keeps going when the server is not there yet, restarts or drops the connection: it says so and
// reconnects (0.5 s, 1 s, 2 s … at most 10 s apart). Ctrl-C stops it.
//   node examples/node-client.mjs [ws://localhost:8000/ws/vils/stream] [--token <token>] [--ego <ego_id>] [--seconds <s>]
//   (a token also from VILS_TOKEN; needed when the server has tokens: a driver or operator one to send egos)
import WebSocket from 'ws';

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const token = flag('--token') ?? process.env.VILS_TOKEN;
const egoId = flag('--ego') ?? 'ego';
const seconds = flag('--seconds'); // stop after this long (e.g. a tour or a script); else run until Ctrl-C
if (seconds !== undefined && !(Number(seconds) > 0)) {
  console.error(`--seconds must be a positive number of seconds, not "${seconds}"`);
  process.exit(2);
}
const url = args[0] ?? 'ws://localhost:8000/ws/vils/stream';

let lat = 37.3645, lon = 126.7239; // FMTC; replace with your GNSS fix
const heading = 45, speed = 5;
let attempt = 0;
let frames = 0;
let stopping = false;
let current = null;

function connect() {
  const ws = new WebSocket(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  current = ws;
  let timer = null;
  ws.on('open', () => {
    attempt = 0;
    console.log(`connected to ${url}`);
    timer = setInterval(() => {
      lat += 0.0000032; lon += 0.0000040; // pretend to drive north-east at about 5 m/s
      ws.send(JSON.stringify({ type: 'ego_state', ego_id: egoId, timestamp: Date.now() / 1000, data: { lat, lon, heading, speed } }));
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
    if (msg.type === 'error') return console.error('server says:', msg.error);
    if (msg.type !== 'npc_states') return;
    frames++;
    const near = msg.npcs.slice(0, 3).map((n) => `#${n.id} (${n.x.toFixed(1)}, ${n.y.toFixed(1)}) ${n.speed.toFixed(1)} m/s`);
    console.log(`step ${msg.step}: ${msg.npcs.length} NPCs, step ${msg.metrics.total_time_ms} ms; ${near.join('; ')}`);
  });
  // a refused connection (wrong token, another origin…): the server's reason, from the HTTP reply
  ws.on('unexpected-response', (_req, res) => {
    let body = '';
    res.on('data', (d) => (body += d));
    res.on('end', () => {
      let reason = body;
      try {
        reason = JSON.parse(body).message ?? body;
      } catch { /* not JSON */ }
      console.error(`the server refused the connection: ${res.statusCode} ${reason}`);
      ws.emit('close', 1006, Buffer.from(''));
    });
  });
  ws.on('error', (err) => {
    // ECONNREFUSED and the like: say it in one line (the close that follows reconnects)
    console.error(`cannot reach ${url}: ${err.code ?? err.message}`);
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
  console.log(why);
  current?.close();
  setTimeout(() => process.exit(code), 200).unref();
}
connect();
process.on('SIGINT', () => stop('stopping (Ctrl-C)'));
// after --seconds: exit 1 when no frame ever came, so a script sees that the server was not there
if (seconds !== undefined) setTimeout(() => stop(`stopping after ${seconds} s: ${frames} frames received`, frames > 0 ? 0 : 1), Number(seconds) * 1000);
