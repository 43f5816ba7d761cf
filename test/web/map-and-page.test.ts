/**
 * The web map's server side, without a browser: GET /api/map (road layers in the map frame, styles,
 * ETag, gzip, schema in the OpenAPI document), the page and its files (CSP, ETag, a fixed set of routes,
 * per-scene pages, a clear 503 when the bundle is not built), and the bundle itself (offline, browser-only
 * source, its size).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyTrafficControl } from '../../src/map/traffic-control.js';
import type { VilsServer } from '../../src/server/app.js';
import { buildMapReply, lineStyle, MAP_ROAD_TYPES } from '../../src/server/plugins/map.js';
import { loadWebBundle, PAGE_CSP, webPlugin } from '../../src/server/plugins/web.js';
import { startServer } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { buildWebBundle, mkTemp } from './browser.js';

interface DemoTrack {
  roads: Array<{ type: string; geometry: Array<{ x: number; y: number }>; map_element_id?: number }>;
  traffic_control: { signals: Array<{ id: string; x: number; y: number }>; stop_lines: Array<{ id: string; geometry: Array<{ x: number; y: number }> }> };
}
const demo = JSON.parse(readFileSync(join(PROJECT_ROOT, 'maps', 'demo-track.json'), 'utf8')) as DemoTrack;

let server: VilsServer;
let url: string;
let bundleDir: string;

beforeAll(async () => {
  bundleDir = buildWebBundle();
  ({ server, url } = await startServer({ config: { npc_target: 2 }, autostart: false, scenes: [{ name: 'b', config: { npc_target: 1 } }] }));
});
afterAll(async () => server?.close());

describe('GET /api/map', () => {
  it('gives every road of the map by type, flat points within 1 cm, with styles, bounds and origin', async () => {
    const res = await fetch(`${url}/api/map`, { headers: { 'accept-encoding': 'identity' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const m = (await res.json()) as any;
    expect(m.name).toBe('demo-track.json');
    expect(m.origin).toEqual({ lat: 37.3645, lon: 126.7239 });
    expect(m.convergence_deg).toBeCloseTo(-1.38, 2);
    const b = server.host.scene.bounds;
    expect(m.bounds.min_x).toBeCloseTo(b.minX, 2);
    expect(m.bounds.max_y).toBeCloseTo(b.maxY, 2);
    for (const t of MAP_ROAD_TYPES) expect(m.roads[t].length).toBe(demo.roads.filter((r) => r.type === t).length);
    // the crossing is signalised: its stop signs became signal heads and stop lines (traffic_control)
    expect(m.counts).toMatchObject({ lane: 12, road_line: 6, road_edge: 4, crosswalk: 4, speed_bump: 1, stop_sign: 0, driveway: 0, skipped: 0 });
    expect(m.counts.points).toBe(demo.roads.reduce((n, r) => n + r.geometry.length, 0));
    for (const t of MAP_ROAD_TYPES) {
      for (const r of m.roads[t]) {
        const src = demo.roads[r.index];
        expect(src.type).toBe(t);
        expect(r.points.length).toBe(2 * src.geometry.length);
        src.geometry.forEach((p, i) => {
          expect(Math.abs(r.points[2 * i] - p.x)).toBeLessThanOrEqual(0.005 + 1e-9);
          expect(Math.abs(r.points[2 * i + 1] - p.y)).toBeLessThanOrEqual(0.005 + 1e-9);
        });
      }
    }
    expect(m.roads.lane[0]).toMatchObject({ lane_id: 'R1', speed_limit: expect.any(Number), element: 2 });
    const broken = m.roads.road_line.find((r: { element: number }) => r.element === 6);
    expect(broken).toMatchObject({ colour: 'white', pattern: 'broken' });
    expect(m.roads.road_edge.every((r: { median: boolean }) => r.median === false)).toBe(true);
  });

  it('gives the traffic control the scene runs: the crossing J1, its two signal groups with stop lines, two heads, two stop lines', async () => {
    const m = (await (await fetch(`${url}/api/map`)).json()) as any;
    const tc = m.traffic_control;
    expect(Object.keys(tc).sort()).toEqual(['crosswalks', 'groups', 'heads', 'junctions', 'signs', 'stop_lines']);
    // the demo track's map carries no crosswalk records (its crossing markings are roads only)
    expect(tc.crosswalks).toEqual([]);
    const layout = server.host.scene.control.layout;
    expect(tc.junctions).toHaveLength(1);
    expect(tc.junctions[0]).toMatchObject({ id: 'J1', control: 'signal' });
    expect(tc.junctions[0].polygon).toEqual(layout.junctions[0].junction.polygon.flatMap((p) => [p.x, p.y]));
    expect(tc.groups.map((g: { id: string }) => g.id).sort()).toEqual(['J1.A', 'J1.B']);
    for (const g of tc.groups) {
      const src = layout.groups.find((l) => l.id === g.id)!;
      expect(g).toMatchObject({ junction: 'J1', left: false, heads: [...src.heads] });
      expect(g.stop_line).toHaveLength(2 * src.stopLine.length);
      src.stopLine.forEach((p, i) => {
        expect(Math.abs(g.stop_line[2 * i] - p.x)).toBeLessThanOrEqual(0.005 + 1e-9);
        expect(Math.abs(g.stop_line[2 * i + 1] - p.y)).toBeLessThanOrEqual(0.005 + 1e-9);
      });
    }
    // each head shows the group whose heads list it
    expect(tc.heads).toHaveLength(2);
    for (const h of tc.heads) {
      const src = demo.traffic_control.signals.find((s) => s.id === h.id)!;
      expect(h).toMatchObject({ x: Math.round(src.x * 100) / 100, y: Math.round(src.y * 100) / 100, kind: 'vehicle', left_arrow: false });
      expect(h.groups).toEqual(tc.groups.filter((g: { heads: string[] }) => g.heads.includes(h.id)).map((g: { id: string }) => g.id));
      expect(h.groups).toHaveLength(1);
    }
    expect(tc.stop_lines.map((l: { id: string }) => l.id)).toEqual(demo.traffic_control.stop_lines.map((l) => l.id));
    expect(tc.stop_lines[0].points).toEqual(demo.traffic_control.stop_lines[0].geometry.flatMap((p) => [Math.round(p.x * 100) / 100, Math.round(p.y * 100) / 100]));
    expect(tc.signs).toEqual([]);
    // the signal states' ids in the frames are the groups' ids
    expect(server.host.scene.snapshot().signals.map((s) => s.id).sort()).toEqual(['J1.A', 'J1.B']);
  });

  it('gives signs and pedestrian heads as mapped, a pedestrian head in no group, and no junctions without a scene\'s layout', () => {
    const trafficControl = {
      signals: [{ id: 'P1', x: 1.234, y: 2.345, head: 'pedestrian_2_colour', kind: 'pedestrian' as const, left_arrow: false, lanes: [] }],
      stop_lines: [{ id: 'L9', geometry: [{ x: 0.001, y: 1 }, { x: 3.456, y: 1 }], lanes: [] }],
      signs: [{ id: 'Y1', x: 5.555, y: 6.666, kind: 'yield' as const, lanes: [] }, { id: 'T1', x: 7, y: 8, kind: 'stop' as const, lanes: [] }],
      crosswalks: [{
        id: 'C1', polygon: [{ x: 0, y: 0 }, { x: 4.001, y: 0 }, { x: 4.001, y: 10 }, { x: 0, y: 10 }],
        a: { x: 2, y: 0 }, b: { x: 2, y: 10 }, length: 10, width: 4, lanes: ['R1'],
      }],
    };
    const reply = buildMapReply(
      { label: 'x', scene: { objects: [], roads: [{ type: 'lane', geometry: [{ x: 0, y: 0 }, { x: 10, y: 0 }] }] }, trafficControl },
      { geo: { origin: { lat: 37, lon: 127 }, originConvergenceDeg: 0 }, scene: { bounds: { minX: 0, minY: 0, maxX: 10, maxY: 1 } } } as never,
    );
    expect(reply.traffic_control).toEqual({
      junctions: [], groups: [],
      heads: [{ id: 'P1', x: 1.23, y: 2.35, kind: 'pedestrian', head: 'pedestrian_2_colour', left_arrow: false, groups: [] }],
      stop_lines: [{ id: 'L9', points: [0, 1, 3.46, 1] }],
      signs: [{ id: 'Y1', x: 5.56, y: 6.67, kind: 'yield' }, { id: 'T1', x: 7, y: 8, kind: 'stop' }],
      crosswalks: [{ id: 'C1', polygon: [0, 0, 4, 0, 4, 10, 0, 10], axis: [2, 0, 2, 10], lanes: ['R1'] }],
    });
  });

  it('is gzipped when asked, revalidates with its ETag, and is in the OpenAPI document', async () => {
    const plain = await (await fetch(`${url}/api/map`, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer();
    // node's fetch decompresses by itself: ask with a bare request to see the bytes on the wire
    const { request } = await import('node:http');
    const wire = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = request(`${url}/api/map`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(wire.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(wire.body).equals(Buffer.from(plain))).toBe(true);
    expect(wire.body.length).toBeLessThan(plain.byteLength / 2);
    const etag = wire.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await fetch(`${url}/api/map`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const docs = (await (await fetch(`${url}/docs/json`)).json()) as any;
    expect(docs.paths['/api/map'].get.responses['200'].content['application/json'].schema.properties).toHaveProperty('roads');
    expect(docs.paths['/api/map'].get.responses['200'].content['application/json'].schema.properties.traffic_control.properties).toHaveProperty('groups');
    expect(docs.paths['/scenes/b/api/map']).toBeDefined();
  });

  it('serves each scene its own map under its prefix', async () => {
    const b = (await (await fetch(`${url}/scenes/b/api/map`)).json()) as any;
    expect(b.name).toBe('demo-track.json');
    expect(b.counts.points).toBeGreaterThan(0);
  });

  it('styles every Waymax road-line id, skips road types it cannot draw', () => {
    expect([6, 7, 8, 9, 10, 11, 12, 13, 5, undefined].map((e) => lineStyle(e))).toEqual([
      { colour: 'white', pattern: 'broken' }, { colour: 'white', pattern: 'solid' }, { colour: 'white', pattern: 'double' },
      { colour: 'yellow', pattern: 'broken' }, { colour: 'yellow', pattern: 'double_broken' }, { colour: 'yellow', pattern: 'solid' },
      { colour: 'yellow', pattern: 'double' }, { colour: 'yellow', pattern: 'passing' },
      { colour: 'white', pattern: 'solid' }, { colour: 'white', pattern: 'solid' },
    ]);
    const reply = buildMapReply(
      { label: 'x', scene: { objects: [], roads: [{ type: 'lane', geometry: [{ x: 0, y: 0 }, { x: 10.004, y: 0 }] }, { type: 'traffic_light', geometry: [{ x: 1, y: 1 }] }, { type: 'road_edge', geometry: [], map_element_id: 16 }, { type: 'road_edge', geometry: [{ x: 0, y: 1 }, { x: 5, y: 1 }], map_element_id: 16 }] }, trafficControl: emptyTrafficControl() },
      { geo: { origin: { lat: 37, lon: 127 }, originConvergenceDeg: 0 }, scene: { bounds: { minX: 0, minY: 0, maxX: 10, maxY: 1 } } } as never,
    );
    expect(reply.counts).toMatchObject({ lane: 1, road_edge: 1, skipped: 2, points: 4 });
    expect(reply.roads.lane[0].points).toEqual([0, 0, 10, 0]);
    expect(reply.roads.road_edge[0]).toMatchObject({ median: true, index: 3 });
  });
});

describe('the page', () => {
  it('is served at / with a same-origin-only Content-Security-Policy, and its files under web/', async () => {
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    const html = await res.text();
    expect(html).toContain('<script type="module" src="web/main.js">');
    expect(html).toContain('<link rel="stylesheet" href="web/main.css">');
    const js = await fetch(`${url}/web/main.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const etag = js.headers.get('etag') as string;
    expect((await fetch(`${url}/web/main.js`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(`${url}/web/main.css`)).headers.get('content-type')).toMatch(/^text\/css/);
    expect((await fetch(`${url}/index.html`)).status).toBe(200);
    // nothing but the bundle's own files: no path reaches the file system
    for (const p of ['/web/../package.json', '/web/%2e%2e/package.json', '/web/index.html', '/package.json', '/web/nothing.js']) {
      expect((await fetch(`${url}${p}`)).status, p).toBe(404);
    }
  });

  it('is served for every scene at /scenes/<name>/, redirecting the bare name so relative paths resolve', async () => {
    const bare = await fetch(`${url}/scenes/b`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/scenes/b/');
    const page = await fetch(`${url}/scenes/b/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('web/main.js');
    expect((await fetch(`${url}/scenes/b/web/main.js`)).status).toBe(200);
  });

  it('says how to build it when the bundle is missing (503), and the server still starts', async () => {
    const bundle = loadWebBundle(mkTemp('vils-noweb-'));
    expect(bundle.missing).toMatch(/web map is not built .*npm run build/);
    const app = Fastify();
    await app.register(webPlugin, { bundle });
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toMatch(/web map is not built .*npm run build/);
    await app.close();
  });
});

describe('the bundle', () => {
  it('is offline (no URL to anywhere else) and small; its source imports nothing but itself', () => {
    const dir = bundleDir;
    const sizes: string[] = [];
    for (const name of ['index.html', 'main.js', 'main.css']) {
      const body = readFileSync(join(dir, name));
      expect(body.toString('utf8'), name).not.toMatch(/\b(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
      sizes.push(`${name} ${(body.length / 1024).toFixed(1)} KiB (${(gzipSync(body).length / 1024).toFixed(1)} KiB gzipped)`);
    }
    const js = statSync(join(dir, 'main.js')).size;
    expect(js).toBeLessThan(200 * 1024);
    console.log(`[web map] bundle: ${sizes.join(', ')}`);
    expect([...loadWebBundle(dir).files.keys()].sort()).toEqual(expect.arrayContaining(['index.html', 'main.css', 'main.js']));
    // the page's source is browser code: relative imports only (no node: modules, no packages); outside src/web
    // only a pure leaf shared with the server (a module that imports nothing itself, e.g. how a verdict prints
    // its figures), so the page and the reports can never say a number two ways. Type-only imports (the
    // protocol's types, derived from its schemas) are erased from the bundle and do not count.
    const src = join(PROJECT_ROOT, 'src', 'web');
    const runtime = (text: string) => text.replace(/^(?:import|export) type [^;]*;/gm, '');
    const imports = (file: string) => [...runtime(readFileSync(file, 'utf8')).matchAll(/(?:from|import)\s*'([^']+)'/g)].map((m) => m[1]);
    const bad: string[] = [];
    for (const f of readdirSync(src).filter((n) => n.endsWith('.ts'))) {
      for (const m of imports(join(src, f))) {
        if (m.startsWith('./')) continue;
        const target = join(src, m.replace(/\.js$/, '.ts'));
        const leaf = m.startsWith('../') && existsSync(target) && imports(target).length === 0;
        if (!leaf) bad.push(`${relative(PROJECT_ROOT, join(src, f))} imports ${m}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
