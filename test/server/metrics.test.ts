/** GET /metrics: the figures a Prometheus scrape expects, in the text format, with bounded labels only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { VilsServer } from '../../src/server/app.js';
import { startServer } from '../helpers/server-fixture.js';

let server: VilsServer;
let url: string;
beforeAll(async () => {
  ({ server, url } = await startServer({ config: { npc_target: 10, publish_hz: 20 }, scenes: [{ name: 'b', config: { npc_target: 3 } }] }));
});
afterAll(async () => server?.close());

function parse(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

describe('GET /metrics', () => {
  it('exposes loop, step, client, ego, NPC-quality and process metrics with bounded labels', async () => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws/vils/stream`);
    await new Promise((r) => ws.once('open', r));
    const p = server.host.geo.toLatLon(0, 0);
    ws.send(JSON.stringify({ type: 'ego_state', ego_id: 'car-7', data: { lat: p.lat, lon: p.lon, heading: 0, speed: 1 } }));
    ws.send('{"type": "nonsense"}');
    await new Promise((r) => setTimeout(r, 1200));
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const samples = parse(await res.text());
    ws.close();
    const get = (name: string, labels: Record<string, string> = {}) =>
      samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    const one = (name: string, labels: Record<string, string>) => {
      const l = get(name, labels);
      expect(l, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
      return l[0].value;
    };
    const d = { scene: 'default' };
    expect(one('vils_step_duration_seconds_count', d)).toBeGreaterThanOrEqual(8);
    expect(one('vils_inference_duration_seconds_count', d)).toBeGreaterThanOrEqual(8);
    expect(one('vils_policy_steps_total', d)).toBeGreaterThanOrEqual(8);
    expect(one('vils_frames_published_total', d)).toBeGreaterThanOrEqual(16);
    expect(one('vils_publish_hz', d)).toBe(20);
    expect(one('vils_loop_overruns_total', d)).toBeGreaterThanOrEqual(0);
    expect(one('vils_clients', { ...d, kind: 'stream' })).toBe(1);
    expect(one('vils_clients', { ...d, kind: 'foxglove' })).toBe(0);
    expect(one('vils_dropped_frames_total', { ...d, kind: 'stream' })).toBe(0);
    expect(one('vils_egos', { ...d, state: 'live' }) + one('vils_egos', { ...d, state: 'stale' })).toBe(1);
    expect(one('vils_ws_messages_total', d)).toBe(2);
    expect(one('vils_ws_errors_total', d)).toBe(1);
    expect(one('vils_npcs', d)).toBe(10);
    expect(one('vils_npcs', { scene: 'b' })).toBe(3);
    expect(one('vils_npc_steps_total', d)).toBeGreaterThanOrEqual(80);
    expect(one('vils_npc_contact_steps_total', d)).toBeGreaterThanOrEqual(0);
    expect(one('vils_npc_offroad_steps_total', d)).toBeGreaterThanOrEqual(0);
    expect(one('vils_npc_trips_total', { ...d, kind: 'started' })).toBeGreaterThanOrEqual(10);
    expect(get('nodejs_eventloop_lag_seconds').length).toBe(1);
    expect(get('process_cpu_seconds_total').length).toBe(1);
    expect(get('process_resident_memory_bytes').length).toBe(1);
    // bounded labels: the vils_ metrics carry only scene, kind, state (and le for buckets), never an ego or NPC id
    const allowed = new Set(['scene', 'kind', 'state', 'le']);
    for (const s of samples.filter((x) => x.name.startsWith('vils_'))) {
      for (const [k, v] of Object.entries(s.labels)) {
        expect(allowed.has(k), `${s.name} label ${k}`).toBe(true);
        if (k === 'scene') expect(['default', 'b']).toContain(v);
        expect(v).not.toMatch(/car-7/);
      }
    }
  });
});
