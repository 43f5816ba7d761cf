// Minimal VILS client for Node.js (npm install ws): sends the ego's GNSS state at 10 Hz and prints the NPCs.
//   node examples/node-client.mjs [ws://localhost:8000/ws/vils/stream]
import WebSocket from 'ws';

const url = process.argv[2] ?? 'ws://localhost:8000/ws/vils/stream';
const ws = new WebSocket(url);
let lat = 37.3645, lon = 126.7239; // FMTC; replace with your GNSS fix
const heading = 45, speed = 5;

ws.on('open', () => {
  setInterval(() => {
    lat += 0.0000032; lon += 0.0000040; // pretend to drive north-east at about 5 m/s
    ws.send(JSON.stringify({ type: 'ego_state', timestamp: Date.now() / 1000, data: { lat, lon, heading, speed } }));
  }, 100);
});
ws.on('message', (data) => {
  const msg = JSON.parse(data.toString());
  if (msg.type === 'error') return console.error('server says:', msg.error);
  if (msg.type !== 'npc_states') return;
  const near = msg.npcs.slice(0, 3).map((n) => `#${n.id} (${n.x.toFixed(1)}, ${n.y.toFixed(1)}) ${n.speed.toFixed(1)} m/s`);
  console.log(`step ${msg.step}: ${msg.npcs.length} NPCs, step ${msg.metrics.total_time_ms} ms; ${near.join('; ')}`);
});
ws.on('close', (code) => console.log('closed', code));
