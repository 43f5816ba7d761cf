/** Writes the demo track (src/map/demo-track.ts): `npm run build:demo-track [-- --out maps/demo-track.json]`. */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildDemoTrack } from '../src/map/demo-track.js';

const { values } = parseArgs({ args: process.argv.slice(2), options: { out: { type: 'string' } } });
const out = values.out ?? 'maps/demo-track.json';
const track = buildDemoTrack();
writeFileSync(out, `${JSON.stringify(track)}\n`);
console.log(`wrote ${out}: ${track.roads.length} roads ${JSON.stringify(track.map.counts)}, ${track.map.lane_graph.lanes.length} lanes`);
