/**
 * The web map in a real browser (Debian's Chromium through playwright-core) on the demo track: it loads
 * offline and clean, draws the roads, shows what the server has, and every control does what the issue
 * says through the REST API — spawning by press-drag-release-click checked against GET /api/npcs to 1 m
 * and 5°. Skipped with a message when no Chromium is installed (never in CI: .ci/run installs it).
 */
import { describe, expect, it } from 'vitest';
import { createServer, type VilsServer } from '../../src/server/app.js';
import { TestClient, testModel } from '../helpers/server-fixture.js';
import { CHROMIUM, shot, sleep, until, usePage, vils } from './browser.js';

interface Npc { id: number; x: number; y: number; yaw: number; speed: number; goal_x: number; goal_y: number; auto: boolean }

describe.skipIf(!CHROMIUM)('web map in Chromium (demo track)', () => {
  const fx = usePage(() => ({ config: { npc_target: 6 }, autostart: false }));
  const api = async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(fx.url + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as T;
  };
  const npcs = async () => (await api<{ npcs: Npc[] }>('GET', '/api/npcs')).npcs;
  const text = (sel: string) => fx.page.locator(sel).innerText();
  const shownStep = async () => Number(await text('#st-step'));
  const toasts = async () => (await fx.page.locator('#toasts .toast').allInnerTexts()).join('\n');

  it('loads with no console errors and nothing from elsewhere, draws the road layers, shows the NPC count the API has', async () => {
    const map = await api('GET', '/api/map');
    expect(await vils(fx.page, 'mapCounts()')).toEqual(map.counts);
    // road layers drawn: along a lane the canvas shows asphalt (or what is on it), never the bare ground
    const lane: number[] = map.roads.lane[0].points;
    const ground = [0x1c, 0x22, 0x26];
    // the first paint comes on an animation frame after the map arrives (later on a busy machine)
    const offRoad = `pixelAt(${map.bounds.max_x + 1}, ${map.bounds.max_y + 1})`;
    await until(async () => (await vils<number[]>(fx.page, offRoad)).join() === ground.join(), 'the first paint of the map');
    const samples: number[][] = [];
    for (let i = 0; i < lane.length; i += 8) samples.push(await vils<number[]>(fx.page, `pixelAt(${lane[i]}, ${lane[i + 1]})`));
    expect(samples.filter((p) => p.join() !== ground.join()).length).toBeGreaterThanOrEqual(samples.length - 1);
    // and off the roads it is ground: the map is not one smear
    expect(await vils(fx.page, offRoad)).toEqual(ground);
    // a layout change resizes the canvas, which clears it: the map is drawn again at once, never left blank
    // until the next animation frame (a user would see a black flash; a read here would see black)
    await fx.page.evaluate(`window.__probe = new Promise((done) => {
      const stage = document.getElementById('stage');
      const before = stage.clientHeight;
      // observed after the page's own observer, so it runs right after the page has resized the canvas
      const ro = new ResizeObserver(() => {
        if (stage.clientHeight === before) return;
        ro.disconnect();
        done(window.__vils.${offRoad});
      });
      ro.observe(stage);
    }); undefined`);
    const size = fx.page.viewportSize()!;
    await fx.page.setViewportSize({ width: size.width, height: size.height - 40 });
    const afterResize = await fx.page.evaluate('window.__probe');
    await fx.page.setViewportSize(size);
    expect(afterResize).toEqual(ground);
    await until(async () => Number(await text('#st-npcs')) === 6, 'the page to show 6 NPCs');
    expect(Number(await text('#st-npcs'))).toBe((await npcs()).length);
    expect(await text('#map-name')).toMatch(/demo-track/);
    expect(await text('#st-conn')).toBe('live');
    // shield interventions: a count when the status has one, else the share, else "–" (servers without a shield)
    const host = fx.server.host;
    const status = host.status.bind(host);
    const withQuality = (extra: Record<string, unknown>) => () => {
      const s = status();
      const { shield_overrides: _a, shield_override_share: _b, ...q } = s.quality as Record<string, unknown>;
      return { ...s, quality: { ...q, ...extra } };
    };
    try {
      host.status = withQuality({});
      await until(async () => (await text('#st-shield')) === '–', 'no shield shown as –');
      host.status = withQuality({ shield_overrides: 7, shield_override_share: 0.5 });
      await until(async () => (await text('#st-shield')) === '7', 'a shield count shown');
      host.status = withQuality({ shield_override_share: 0.0423 });
      await until(async () => (await text('#st-shield')) === '4.2 % of steps', 'a shield share shown');
      host.status = withQuality({ shield_overrides: 'many' });
      await until(async () => (await text('#st-shield')) === '–', 'nonsense shown as –');
    } finally {
      host.status = status;
    }
    expect(fx.log.errors).toEqual([]);
    expect(fx.log.foreign).toEqual([]);
  });

  it('pans by dragging, zooms with the wheel about the pointer, 0 fits the map, H shows the help', async () => {
    type V = { cx: number; cy: number; scale: number };
    const fit = await vils<V>(fx.page, 'view()');
    const C = (await fx.page.locator('#map').boundingBox())!;
    const mx = C.x + C.width / 2 + 100, my = C.y + C.height / 2 - 50;
    const under = await vils<{ x: number; y: number }>(fx.page, `screenToMap(${C.width / 2 + 100}, ${C.height / 2 - 50})`);
    await fx.page.mouse.move(mx, my);
    await fx.page.mouse.wheel(0, -300);
    await until(async () => (await vils<V>(fx.page, 'view()')).scale > fit.scale * 1.3, 'a zoom in');
    // the map point under the pointer stays under it (to a pixel: mouse events come in whole pixels)
    const still = await vils<{ x: number; y: number }>(fx.page, `screenToMap(${C.width / 2 + 100}, ${C.height / 2 - 50})`);
    const z = await vils<V>(fx.page, 'view()');
    expect(Math.hypot(still.x - under.x, still.y - under.y) * z.scale).toBeLessThan(1);
    await fx.page.mouse.move(mx, my);
    await fx.page.mouse.down();
    await fx.page.mouse.move(mx - 120, my + 80, { steps: 5 });
    await fx.page.mouse.up();
    const panned = await vils<V>(fx.page, 'view()');
    expect(panned.cx - z.cx).toBeCloseTo(120 / z.scale, 1);
    expect(panned.cy - z.cy).toBeCloseTo(80 / z.scale, 1);
    expect(await fx.page.locator('#inspector').isHidden()).toBe(true); // a drag is not a click
    await fx.page.keyboard.press('0');
    expect(await vils<V>(fx.page, 'view()')).toEqual(fit);
    await fx.page.keyboard.press('h');
    expect(await fx.page.locator('#help').isVisible()).toBe(true);
    expect(await fx.page.locator('#help').innerText()).toMatch(/right-click to let the server choose/);
    await fx.page.keyboard.press('Escape');
    expect(await fx.page.locator('#help').isHidden()).toBe(true);
    await fx.page.locator('#btn-help').click();
    expect(await fx.page.locator('#help').isVisible()).toBe(true);
    await fx.page.keyboard.press('h');
    expect(await fx.page.locator('#help').isHidden()).toBe(true);
  });

  it('A, press-drag-release, click: the NPC stands where pressed, heading as dragged, at the speed shown, goal where clicked', async () => {
    await api('DELETE', '/api/npcs');
    await api('PUT', '/api/config', { npc_target: 0 });
    // zoom in on the first straight (lane R1 runs north-east) so a pixel is a few centimetres
    const lane: number[] = (await api('GET', '/api/map')).roads.lane[0].points;
    const [px, py] = [lane[10], lane[11]];
    await vils(fx.page, `setView(${px}, ${py}, 6)`);
    const theta = (50 * Math.PI) / 180; // drag direction in the map frame
    const end = { x: px + 14 * Math.cos(theta), y: py + 14 * Math.sin(theta) };
    const goal = { x: lane[lane.length - 2], y: lane[lane.length - 1] };
    const P = await vils<{ x: number; y: number }>(fx.page, `mapToPage(${px}, ${py})`);
    const E = await vils<{ x: number; y: number }>(fx.page, `mapToPage(${end.x}, ${end.y})`);
    await fx.page.keyboard.press('a');
    expect(await vils(fx.page, 'mode()')).toBe('spawn-press');
    await fx.page.mouse.move(P.x, P.y);
    await fx.page.mouse.down();
    await fx.page.mouse.move((P.x + E.x) / 2, (P.y + E.y) / 2, { steps: 4 });
    const midSpeed = Number(await text('#spawn-speed'));
    await fx.page.mouse.move(E.x, E.y, { steps: 4 });
    const shownSpeed = Number(await text('#spawn-speed'));
    expect(midSpeed).toBeGreaterThan(0);
    expect(shownSpeed).toBeGreaterThan(midSpeed); // shown live, growing with the drag
    await fx.page.mouse.up();
    expect(await vils(fx.page, 'mode()')).toBe('spawn-goal');
    expect(Number(await text('#spawn-speed'))).toBe(shownSpeed);
    const G = await vils<{ x: number; y: number }>(fx.page, `mapToPage(${goal.x}, ${goal.y})`);
    await fx.page.mouse.click(G.x, G.y);
    const list = await until(async () => { const l = await npcs(); return l.length === 1 ? l : null; }, 'the spawned NPC');
    const n = list[0];
    expect(Math.hypot(n.x - px, n.y - py)).toBeLessThan(1);
    const dyaw = Math.abs(Math.atan2(Math.sin(n.yaw - theta), Math.cos(n.yaw - theta)));
    expect((dyaw * 180) / Math.PI).toBeLessThan(5);
    expect(n.speed).toBeCloseTo(shownSpeed, 3);
    expect(Math.hypot(n.goal_x - goal.x, n.goal_y - goal.y)).toBeLessThan(1);
    expect(n.auto).toBe(false);
    await until(async () => (await toasts()).includes(`NPC ${n.id} spawned`), 'the spawn confirmation');
  });

  it('right-click lets the server choose the goal; a refused spawn shows the server\'s reason', async () => {
    const lane: number[] = (await api('GET', '/api/map')).roads.lane[0].points;
    const [px, py] = [lane[20], lane[21]];
    const P = await vils<{ x: number; y: number }>(fx.page, `mapToPage(${px}, ${py})`);
    await fx.page.keyboard.press('a');
    await fx.page.mouse.click(P.x, P.y); // a click without a drag: along the lane, standing
    expect(await vils(fx.page, 'mode()')).toBe('spawn-goal');
    expect(await text('#spawn-readout')).toMatch(/along the lane/);
    await fx.page.mouse.click(P.x + 200, P.y + 100, { button: 'right' });
    const n = await until(async () => (await npcs()).find((m) => Math.hypot(m.x - px, m.y - py) < 1), 'the NPC with a server goal');
    expect(n.speed).toBe(0);
    expect(Math.hypot(n.goal_x - n.x, n.goal_y - n.y)).toBeGreaterThan(5); // ahead along the lanes, not the click
    // now a spawn off the map: the server refuses and the page says why
    await api('PUT', '/api/config', { map_margin_m: 0 });
    const map = await api('GET', '/api/map');
    await vils(fx.page, `setView(${map.bounds.max_x + 40}, ${map.bounds.max_y + 40}, 4)`);
    const before = (await npcs()).length;
    await fx.page.keyboard.press('a');
    const C = await fx.page.locator('#map').boundingBox();
    await fx.page.mouse.click(C!.x + C!.width / 2, C!.y + C!.height / 2);
    await fx.page.mouse.click(C!.x + C!.width / 2 + 50, C!.y + C!.height / 2, { button: 'right' });
    await until(async () => /Spawn refused: spawn point .* outside the map area/.test(await toasts()), 'the refusal shown');
    expect((await npcs()).length).toBe(before);
    await api('PUT', '/api/config', { map_margin_m: 2000 });
    // Esc cancels spawn mode
    await fx.page.keyboard.press('a');
    await fx.page.keyboard.press('Escape');
    expect(await vils(fx.page, 'mode()')).toBe('idle');
  });

  it('click an NPC to inspect it; Delete removes it from /api/npcs', async () => {
    await fx.page.keyboard.press('0');
    const target = (await npcs())[0];
    await vils(fx.page, `setView(${target.x}, ${target.y}, 8)`);
    await sleep(100);
    const P = await vils<{ x: number; y: number }>(fx.page, `mapToPage(${target.x}, ${target.y})`);
    await until(async () => (await vils<{ npcs: Npc[] }>(fx.page, 'lastFrame()')).npcs.some((n) => n.id === target.id), `NPC ${target.id} on the page`);
    await fx.page.mouse.click(P.x, P.y);
    await until(() => fx.page.locator('#inspector').isVisible(), 'the inspector');
    expect(await text('#insp-title')).toContain(`NPC ${target.id}`);
    const fields = await text('#insp-fields');
    expect(fields).toMatch(/position\s+x -?[0-9.]+ m, y -?[0-9.]+ m/);
    expect(fields).toMatch(/goal\s+x -?[0-9.]+, y -?[0-9.]+ · [0-9.]+ m away/);
    expect(fields).toMatch(/flags\s+none|flags\s+collided|flags\s+off-road/);
    await fx.page.locator('#insp-delete').click();
    await until(async () => !(await npcs()).some((n) => n.id === target.id), `NPC ${target.id} gone from /api/npcs`);
    await until(async () => !(await fx.page.locator('#inspector').isVisible()), 'the inspector closed');
  });

  it('SPACE stops the step counter and starts it again; R resets; C clears', async () => {
    await fx.page.keyboard.press('0');
    await api('POST', '/api/init', { npc_count: 8, start: false });
    await until(async () => Number(await text('#st-npcs')) === 8, '8 NPCs shown');
    await fx.page.keyboard.press('Space');
    await until(async () => (await shownStep()) >= 5, 'steps counting');
    await fx.page.keyboard.press('Space');
    await until(async () => (await text('#st-state')).toLowerCase() === 'paused', 'paused shown');
    const a = await shownStep();
    await sleep(1200);
    expect(await shownStep()).toBe(a);
    expect((await api('GET', '/api/status')).step).toBe(a);
    await fx.page.keyboard.press('Space');
    await until(async () => (await shownStep()) > a + 3, 'steps counting again');
    expect((await api('GET', '/api/status')).state).toBe('running');

    const before = (await api('GET', '/api/status')).step;
    await fx.page.keyboard.press('r');
    await until(async () => (await api('GET', '/api/status')).step < before, 'the reset');
    await until(async () => (await shownStep()) < before, 'the reset shown');
    await until(async () => /Reset/.test(await toasts()), 'the reset confirmed');

    await fx.page.keyboard.press('c');
    await until(async () => (await npcs()).length === 0, 'no NPCs');
    await sleep(500); // running: nothing respawns (the auto-spawn target is 0 now)
    expect(await npcs()).toEqual([]);
    await until(async () => Number(await text('#st-npcs')) === 0, 'the page showing 0 NPCs');
    // Init N brings them back, and refuses what the server refuses
    await fx.page.locator('#init-n').fill('64');
    await fx.page.locator('#btn-init').click();
    await until(async () => /Init refused: .*npc_count must be <= 63/.test(await toasts()), 'the refusal of 64 NPCs');
    await fx.page.locator('#init-n').fill('10');
    await fx.page.locator('#btn-init').click();
    await until(async () => (await npcs()).length === 10, '10 NPCs after Init');
  });

  it('shows egos distinct, greys stale ones, follows one; the page itself never sends and is never an ego', async () => {
    // the stale car is kept until the test forgets it (DELETE below), however long the checks take
    await api('PUT', '/api/config', { ego_forget_s: 3600 });
    const car = new TestClient(fx.url.replace(/^http/, 'ws') + '/ws/vils/stream');
    await car.opened();
    const lane: number[] = (await api('GET', '/api/map')).roads.lane[2].points;
    const sendAt = (i: number) => {
      // the car drives along lane 2 at 10 Hz, as the GNSS of a test car would
      const k = Math.min(lane.length / 2 - 1, i);
      const x = lane[2 * k], y = lane[2 * k + 1];
      const ll = fx.server.host.geo.toLatLon(x, y);
      const nx = lane[2 * Math.min(k + 1, lane.length / 2 - 1)], ny = lane[2 * Math.min(k + 1, lane.length / 2 - 1) + 1];
      const yaw = Math.atan2(ny - y, nx - x);
      car.send({ type: 'ego_state', ego_id: 'car-1', timestamp: Date.now() / 1000, data: { lat: ll.lat, lon: ll.lon, heading: fx.server.host.geo.yawToHeading(yaw, x, y), speed: 6 } });
    };
    let i = 0;
    const timer = setInterval(() => sendAt(i++), 100);
    try {
      await until(async () => (await text('#st-egos')) === '1', 'the ego shown');
      await fx.page.keyboard.press('f');
      // the view follows the car: centred on it (within the few metres it drives between a fix and the check)
      await until(async () => {
        const v = await vils<{ cx: number; cy: number }>(fx.page, 'view()');
        const ego = (await api('GET', '/api/egos')).egos[0];
        return Math.hypot(v.cx - ego.x, v.cy - ego.y) < 5;
      }, 'the view centred on the followed ego');
      expect(await fx.page.locator('#btn-follow').getAttribute('aria-pressed'), await toasts()).toBe('true');
      // a click on the car (the centre of the view that follows it): its inspector says where its heading comes from
      const c = await vils<{ cx: number; cy: number }>(fx.page, 'view()');
      const C = await vils<{ x: number; y: number }>(fx.page, `mapToPage(${c.cx}, ${c.cy})`);
      await fx.page.mouse.click(C.x, C.y);
      await until(async () => /heading from\s*the car \(GNSS heading\)/.test(await text('#insp-fields')), 'the heading source in the inspector');
      await fx.page.locator('#insp-close').click();
      await vils(fx.page, 'setView(0, 0, 2.6)');
      await sleep(700);
      await shot(fx.page, 'demo-track.png');
    } finally {
      clearInterval(timer);
    }
    await until(async () => /\(1 stale\)/.test(await text('#st-egos')), 'the ego shown stale');
    car.close();
    const s = await api('GET', '/api/status');
    // the car's messages only: the page has sent nothing on its stream
    expect(s.ws_messages).toBe(i);
    expect(s.egos.map((e: { ego_id: string }) => e.ego_id)).toEqual(['car-1']);
    expect(fx.log.foreign).toEqual([]);
    // followed, then forgotten (as after ego_forget_s, or by DELETE): following ends, said so, the button unlit
    await fx.page.keyboard.press('f');
    await until(async () => (await fx.page.locator('#btn-follow').getAttribute('aria-pressed')) === 'true', 'following the stale ego');
    expect(await fetch(`${fx.url}/api/egos/car-1`, { method: 'DELETE' }).then((r) => r.status)).toBe(200);
    await until(async () => (await fx.page.locator('#btn-follow').getAttribute('aria-pressed')) === 'false', 'following ended with the ego');
    await until(async () => /Follow ego ended: ego car-1 is no longer in the scene/.test(await toasts()), 'the end of following said');
    await api('PUT', '/api/config', { ego_forget_s: 10 });
  });

  it('says so when the server is gone, and reconnects by itself when it is back', async () => {
    const port = Number(new URL(fx.url).port);
    await fx.server.close();
    await until(async () => /The server is gone.*Reconnecting by itself/.test(await text('#banner')), 'the lost-server banner', 8000);
    expect(await text('#st-conn')).toBe('reconnecting');
    await sleep(1500); // a few failed attempts
    fx.server = await restartOn(port);
    await until(async () => (await text('#st-conn')) === 'live', 'live again', 10_000);
    await until(async () => Number(await text('#st-npcs')) === 3, 'the new server\'s NPCs', 5000);
    expect(await fx.page.locator('#banner').isHidden()).toBe(true);
  });
});

async function restartOn(port: number): Promise<VilsServer> {
  const server = await createServer({ modelPath: testModel(), logLevel: false, config: { npc_target: 3 } });
  await server.app.listen({ port, host: '127.0.0.1' });
  return server;
}
