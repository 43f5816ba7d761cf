/**
 * Commands of the README as a new user copies them from a fresh clone, which has no ../shared (issue 27 item 2):
 * every vehicle and tire file the README's commands name is shipped in the repository, and `vils plant iso7401`
 * runs on them; the quick start's ego_state message, sent to a real server on the demo track as the README says
 * (its fields as printed, the current time as timestamp: the printed one is long stale), puts the ego on a lane
 * (within 1 m of a lane's centre line) heading along it. Read from README.md, so a change to
 * the README is checked too. Hang guards only; nothing here depends on the machine's speed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { plantCommand } from '../../src/cli/plant.js';
import { GeoFrame } from '../../src/geo/index.js';
import { loadMapFile } from '../../src/map/index.js';
import { loadTireParams, loadVehicleParams } from '../../src/plant/index.js';
import type { VilsServer } from '../../src/server/app.js';
import { startServer, TestClient } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

// the README and the pages it links to under docs/ (issue 27 item 1 moved most commands there)
const PAGES = ['README.md', ...readdirSync(join(PROJECT_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];
const README = PAGES.map((p) => readFileSync(join(PROJECT_ROOT, p), 'utf8')).join('\n');
const README_ONLY = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const DEMO_TRACK = join(PROJECT_ROOT, 'maps', 'demo-track.json');

async function capture(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const warn = vi.spyOn(console, 'warn').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    const code = await plantCommand.run(argv);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
    warn.mockRestore();
  }
}

/** The demo track's lanes as centre-line polylines (local metres). */
function demoLanes(): Array<Array<{ x: number; y: number }>> {
  return loadMapFile(DEMO_TRACK).scene.roads.filter((r) => r.type === 'lane').map((r) => r.geometry);
}

/** Distance from (x, y) to the nearest lane centre line, and that segment's direction (rad). */
function nearestLane(x: number, y: number): { d: number; yaw: number } {
  let best = { d: Infinity, yaw: 0 };
  for (const g of demoLanes()) {
    for (let k = 0; k + 1 < g.length; k++) {
      const a = g[k];
      const b = g[k + 1];
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const l2 = dx * dx + dy * dy;
      const t = l2 > 0 ? Math.max(0, Math.min(1, ((x - a.x) * dx + (y - a.y) * dy) / l2)) : 0;
      const d = Math.hypot(x - (a.x + t * dx), y - (a.y + t * dy));
      if (d < best.d) best = { d, yaw: Math.atan2(dy, dx) };
    }
  }
  return best;
}

const angleDiff = (a: number, b: number) => Math.abs(Math.atan2(Math.sin(a - b), Math.cos(a - b)));

type EgoStateExample = { type: string; timestamp: number; data: { lat: number; lon: number; heading: number; speed: number } };

/** The first ego_state message of a ```json block in `text`. */
function egoStateIn(text: string, what: string): EgoStateExample {
  const block = [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes('"ego_state"'));
  expect(block, `${what} shows an ego_state message in a \`\`\`json block`).toBeDefined();
  return JSON.parse(block!);
}

/** The quick start's ego_state message, as printed in the docs' quick start and in the README's tour. */
function quickStartMessages(): EgoStateExample[] {
  const start = README.indexOf('## Quick start');
  expect(start, 'the docs have a "## Quick start" section').toBeGreaterThanOrEqual(0);
  const section = README.slice(start, README.indexOf('\n## ', start + 1));
  const tour = README_ONLY.indexOf('## A five-minute tour');
  expect(tour, 'README.md has "## A five-minute tour"').toBeGreaterThanOrEqual(0);
  return [egoStateIn(section, 'the quick start'), egoStateIn(README_ONLY.slice(tour), "the README's tour")];
}
const quickStartMessage = (): EgoStateExample => quickStartMessages()[0];

describe('vehicle and tire files named by the README', () => {
  it('every --vehicle/--tire file and every vils realtime <vehicle> <tire> in the README is shipped and loads', () => {
    const files = new Set<string>();
    for (const m of README.matchAll(/--(?:vehicle|tire) (\S+\.ya?ml)\b/g)) files.add(m[1]);
    for (const m of README.matchAll(/vils realtime (\S+\.ya?ml) (\S+\.ya?ml)/g)) files.add(m[1]).add(m[2]);
    expect(files.size).toBeGreaterThanOrEqual(2);
    for (const f of files) {
      expect(existsSync(join(PROJECT_ROOT, f)), `${f} (named in README.md) is in the repository`).toBe(true);
      if (/(^|\/)vehicles\//.test(f)) expect(() => loadVehicleParams(join(PROJECT_ROOT, f))).not.toThrow();
      if (/(^|\/)tires\//.test(f)) expect(() => loadTireParams(join(PROJECT_ROOT, f))).not.toThrow();
    }
  });

  it("the README's `vils plant iso7401 --vehicle … --tire …` runs on the shipped files without ../shared", async () => {
    const m = /npx vils plant iso7401 --vehicle (\S+) --tire (\S+)/.exec(README);
    expect(m, 'README.md shows `npx vils plant iso7401 --vehicle <file> --tire <file>`').not.toBeNull();
    vi.stubEnv('VILS_SHARED', join(PROJECT_ROOT, 'no-such-shared-folder'));
    try {
      const { code, out, err } = await capture(['iso7401', '--vehicle', join(PROJECT_ROOT, m![1]), '--tire', join(PROJECT_ROOT, m![2]), '--json']);
      expect(err).toBe('');
      expect(code).toBe(0);
      const r = JSON.parse(out) as { procedure: string; warnings: string[]; metrics: Record<string, unknown> };
      expect(r.procedure).toBe('iso7401');
      expect(r.warnings).toEqual([]);
      for (const k of ['yawRateSs', 'overshoot', 'lateralAccelSs']) {
        expect(Number.isFinite(r.metrics[k]), `${k} = ${String(r.metrics[k])}`).toBe(true);
        expect(r.metrics[k] as number).toBeGreaterThan(0);
      }
    } finally {
      vi.unstubAllEnvs();
    }
  }, 120_000);
});

describe("the quick start's ego_state example", () => {
  let server: VilsServer | undefined;
  let wsUrl: string;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    ({ server, wsUrl } = await startServer({ mapPath: DEMO_TRACK, config: { npc_target: 2 } }));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.close();
  });

  it('is a point on a lane of the demo track, heading along it; the README says to send the current time', () => {
    for (const msg of quickStartMessages()) {
      expect(msg.type).toBe('ego_state');
      const origin = loadMapFile(DEMO_TRACK).mapMetadata!.origin!;
      const geo = new GeoFrame({ lat: origin.lat, lon: origin.lon });
      const p = geo.toLocal(msg.data.lat, msg.data.lon);
      const lane = nearestLane(p.x, p.y);
      expect(lane.d, `(${p.x.toFixed(2)}, ${p.y.toFixed(2)}) is ${lane.d.toFixed(2)} m from the nearest lane`).toBeLessThan(1);
      expect(angleDiff(geo.headingToYaw(msg.data.heading, msg.data.lat, msg.data.lon), lane.yaw)).toBeLessThan((5 * Math.PI) / 180);
    }
    for (const [text, what] of [[README.slice(README.indexOf('## Quick start')), 'the quick start'], [README_ONLY, 'the README']] as const) {
      const says = /`timestamp` is the fix's time .*send the current time/.test(text.replace(/\s+/g, ' '));
      expect(says, `${what} says "\`timestamp\` is the fix's time … send the current time"`).toBe(true);
    }
  });

  it('sent to a real server with the current time as its timestamp (as the README says), puts the ego within 1 m of a lane', async () => {
    const msg = quickStartMessage();
    const c = new TestClient(wsUrl);
    clients.push(c);
    await c.opened();
    const sent: number[] = [];
    const send = () => {
      const timestamp = Date.now() / 1000;
      sent.push(timestamp);
      c.send({ ...msg, timestamp });
    };
    send();
    const resend = setInterval(send, 100);
    try {
      const frame = await c.next((m) => m.type === 'npc_states' && Array.isArray(m.egos) && m.egos.some((e: { ego_id: string }) => e.ego_id === 'ego'), 30_000);
      expect(c.messages.filter((m) => m.type === 'error')).toEqual([]);
      const ego = frame.egos.find((e: { ego_id: string }) => e.ego_id === 'ego') as { x: number; y: number; yaw: number; stale: boolean; timestamp: number };
      expect(ego.stale).toBe(false);
      expect(sent).toContain(ego.timestamp);
      const lane = nearestLane(ego.x, ego.y);
      expect(lane.d, `ego at (${ego.x}, ${ego.y}) is ${lane.d.toFixed(2)} m from the nearest lane`).toBeLessThan(1);
      expect(angleDiff(ego.yaw, lane.yaw)).toBeLessThan((5 * Math.PI) / 180);
    } finally {
      clearInterval(resend);
    }
  }, 60_000);
});
