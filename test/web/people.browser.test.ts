/**
 * People on the web map in a real browser (Debian's Chromium through playwright-core) on the demo track: the frames
 * carry pedestrians and a cyclist (put into the scene's snapshots here, so they go through the server's real frame
 * builders and WebSocket), the page draws a pedestrian as a filled circle of its colour at its place — still a few
 * pixels wide zoomed far out — and a cyclist as a box of its own colour, the inspector says the kind. The crosswalks
 * (GET /api/map traffic_control.crosswalks; the demo track's four crossing markings given ids here, as a map made
 * with them carries them) are outlined, and filled in the state of a walk signal group that names them in the
 * frames' signals (walk green, don't walk red; such entries are added to what the page receives). Writes
 * test/web/artifacts/people.png. Skipped with a message when no Chromium is installed (never in CI).
 */
import { describe, expect, it } from 'vitest';
import type { NpcState, SceneSnapshot } from '../../src/scene/index.js';
import { PERSON_ID_BASE } from '../../src/traffic/object-kind.js';
import { PERSON_COLOURS } from '../../src/web/kind-colours.js';
import { CHROMIUM, shot, until, usePage, vils } from './browser.js';

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const near = (p: number[], hex: string, tol = 40) => rgb(hex).every((c, i) => Math.abs(c - p[i]) <= tol);

/** the first crosswalk marking of the demo track (north-east arm): centre, and its walking direction (north-west) */
const CW = { cx: 6.35, cy: 6.35, dir: [-Math.SQRT1_2, Math.SQRT1_2] };
const WALKER = { x: CW.cx + 1.5 * CW.dir[0], y: CW.cy + 1.5 * CW.dir[1] };
const EMPTY_SPOT = { x: CW.cx - 3.2 * CW.dir[0], y: CW.cy - 3.2 * CW.dir[1] };

function person(id: number, x: number, y: number, yaw: number, kind: 'pedestrian' | 'cyclist', size: [number, number]): NpcState {
  return { id, x, y, yaw, vx: 0, vy: 0, speed: 0, length: size[0], width: size[1], goalX: x, goalY: y, collided: false, offroad: false, auto: true, hold: 'none', kind };
}
const PEOPLE: NpcState[] = [
  person(PERSON_ID_BASE + 1, WALKER.x, WALKER.y, (3 * Math.PI) / 4, 'pedestrian', [0.5, 0.6]),
  person(PERSON_ID_BASE + 2, -6.35, 6.35, Math.PI / 4, 'pedestrian', [0.5, 0.6]),
  person(1_000_003, 22, -2.5, 0, 'cyclist', [1.8, 0.6]),
];

describe.skipIf(!CHROMIUM)('web map in Chromium: people and crosswalks', () => {
  const fx = usePage(() => ({ config: { npc_target: 0 }, autostart: true }));
  let walk: 'green' | 'red' = 'green';

  it('draws the people of the frames as what they are, and the crosswalks in their walk state', async () => {
    const { page, server } = fx;
    // the scene's snapshots with the people in them: every frame the server builds from here on carries them
    const scene = server.host.scene;
    const snapshot = scene.snapshot.bind(scene);
    scene.snapshot = (t?: number): SceneSnapshot => {
      const s = snapshot(t);
      return { ...s, npcs: [...s.npcs, ...PEOPLE] };
    };
    // the crosswalks as a map with them carries them, and a walk group naming the first one in every frame
    const map = await (await fetch(`${fx.url}/api/map`)).json() as { roads: { crosswalk: Array<{ points: number[] }> } };
    const crosswalks = map.roads.crosswalk.map((r, i) => ({ id: `CW${i + 1}`, polygon: r.points, axis: [], lanes: [] }));
    expect(crosswalks).toHaveLength(4);
    await page.route('**/api/map', async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      body.traffic_control.crosswalks = crosswalks;
      await route.fulfill({ response: res, json: body });
    });
    await page.routeWebSocket(/\/ws\/vils\/stream/, (ws) => {
      const srv = ws.connectToServer();
      srv.onMessage((m) => {
        if (typeof m !== 'string' || !m.startsWith('{"type":"npc_states"')) return ws.send(m);
        const f = JSON.parse(m) as { signals?: unknown[] };
        f.signals = [...(f.signals ?? []), { id: 'J1.W1', numeric_id: 99, junction: 'J1', state: walk, code: walk === 'green' ? 'G' : 'r', time_to_change_s: null, source: 'live', left: false, lanes: [], crosswalks: ['CW1'] }];
        ws.send(JSON.stringify(f));
      });
    });
    // requests the first load still had open are aborted by the reload (net::ERR_ABORTED): what counts is from here
    await page.reload();
    fx.log.errors.length = 0;
    await page.waitForFunction(() => {
      const v = (globalThis as unknown as { __vils?: { mapLoaded(): boolean; lastFrame(): { npcs: Array<{ kind?: string }> } | null } }).__vils;
      return v !== undefined && v.mapLoaded() && (v.lastFrame()?.npcs.some((n) => n.kind === 'pedestrian') ?? false);
    }, null, { timeout: 30_000 });
    expect(await vils(page, 'crosswalkCount()')).toBe(4);
    const frame = await vils<{ npcs: Array<{ id: number; kind: string }> }>(page, 'lastFrame()');
    expect(frame.npcs.map((n) => [n.id, n.kind])).toEqual(PEOPLE.map((p) => [p.id, p.kind]));

    // close in on the north-east crosswalk: 14 px per metre
    await vils(page, `setView(${CW.cx + 4}, ${CW.cy - 2}, 14)`);
    const drawnNow = async () => {
      const before = (await vils<{ step: number | null }>(page, 'drawn()')).step;
      await until(async () => (await vils<{ step: number | null }>(page, 'drawn()')).step !== before, 'a new frame drawn');
    };
    await drawnNow();
    const people = await vils<Array<{ id: number; kind: string; r: number }>>(page, 'peopleDrawn()');
    expect(people.map((p) => [p.id, p.kind])).toEqual(PEOPLE.map((p) => [p.id, p.kind]));
    // sized to scale: 0.6 m across at 14 px/m is a 4.2 px radius
    expect(people[0].r).toBeCloseTo(0.3 * 14, 5);
    expect(near(await vils<number[]>(page, `pixelAt(${WALKER.x}, ${WALKER.y})`), PERSON_COLOURS.pedestrian), 'the pedestrian\'s colour at its place').toBe(true);
    expect(near(await vils<number[]>(page, `pixelAt(22, -2.5)`), PERSON_COLOURS.cyclist), 'the cyclist\'s colour at its place').toBe(true);
    // the crosswalk its walk group governs: green (walk) where nobody stands on it
    const fillAt = async () => await vils<number[]>(page, `pixelAt(${EMPTY_SPOT.x}, ${EMPTY_SPOT.y})`);
    const green = await fillAt();
    expect(green[1] > green[0] + 40, `walk: green fill, got ${green}`).toBe(true);
    await shot(page, 'people.png');
    // don't walk: red
    walk = 'red';
    await until(async () => {
      const p = await fillAt();
      return p[0] > p[1] + 40;
    }, 'the crosswalk drawn red (don\'t walk)');
    // the other crosswalks, which no group governs, are outlined only: no fill of either state at their centres
    const other = await vils<number[]>(page, `pixelAt(-6.35, -6.35)`);
    expect(Math.abs(other[0] - other[1]) < 40, `an ungoverned crosswalk unfilled, got ${other}`).toBe(true);

    // the inspector says what it is
    const at = await vils<{ x: number; y: number }>(page, `mapToPage(${WALKER.x}, ${WALKER.y})`);
    await page.mouse.click(at.x, at.y);
    await until(async () => /Pedestrian 2000001/.test(await page.locator('#insp-title').innerText()), 'the inspector on the pedestrian');
    expect(await page.locator('#insp-fields').innerText()).toMatch(/kind\s+pedestrian/);
    await page.keyboard.press('Escape');

    // zoomed far out (0.3 px per metre: a pedestrian would be a tenth of a pixel) each person is still drawn visibly
    await vils(page, `setView(${CW.cx}, ${CW.cy}, 0.3)`);
    await drawnNow();
    const far = await vils<Array<{ id: number; r: number }>>(page, 'peopleDrawn()');
    expect(far.filter((p) => p.id >= PERSON_ID_BASE).map((p) => p.r)).toEqual([3.5, 3.5]);
    // (the second pedestrian, drawn last: the first, 3.8 px away at this scale, lies under its rim)
    const seen = await vils<number[]>(page, 'pixelAt(-6.35, 6.35)');
    expect(near(seen, PERSON_COLOURS.pedestrian, 60), `a pedestrian zoomed out: still its colour, got ${seen}`).toBe(true);
    expect(fx.log.errors, fx.log.errors.join('\n')).toEqual([]);
  }, 180_000);
});
