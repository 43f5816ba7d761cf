/**
 * One settings table (issue 24 item 3): the defaults, the REST schema and the checks of every path come from
 * src/scene/config.ts's SCENE_SETTINGS and src/server/settings.ts's SERVING_SETTINGS, and every path refuses
 * the same values the same way: the scene itself, PUT /api/config, a scenario's `scene:` and
 * `vils serve --config` (before, 5e-324 passed everywhere as an ego length or a speed limit).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startServe } from '../../src/cli/serve.js';
import { scenarioFromDocument } from '../../src/scenario/config.js';
import { DEFAULT_SCENE_CONFIG, RESTART_ONLY_SETTINGS, SCENE_SETTINGS, settingProblem } from '../../src/scene/index.js';
import type { VilsServer } from '../../src/server/app.js';
import { DEFAULT_CONFIG } from '../../src/server/host.js';
import { configSchema } from '../../src/server/schemas.js';
import { withSettingsTable } from '../../src/server/write-protocol-docs.js';
import { SESSION_SETTINGS } from '../../src/server/settings.js';
import { MAX_NPCS } from '../../src/traffic/engine.js';
import { startServer, testModel } from '../helpers/server-fixture.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

const BAD: Array<[string, unknown, RegExp]> = [
  ['ego_length', 5e-324, /ego_length must be within 1–30 m, got 5e-324/],
  ['speed_limit_mps', 5e-324, /speed_limit_mps must be within 1–70 m\/s/],
  ['npc_target', 64, /npc_target must be within 0–63 NPCs, got 64/],
  ['npc_target', 2.5, /npc_target must be a whole number/],
  ['ego_timeout_s', Number.NaN, /ego_timeout_s must be a finite number/],
  ['goal_update', 'sometimes', /goal_update must be one of continuous, renew/],
  ['shield', 'yes', /shield must be true or false/],
];

describe('the table', () => {
  it('has every setting of the scene and the server, each default within its range, and the REST schema made from it', () => {
    expect(Object.keys(DEFAULT_CONFIG).sort()).toEqual(Object.keys(SESSION_SETTINGS).sort());
    for (const [k, spec] of Object.entries(SESSION_SETTINGS)) {
      expect(settingProblem(k, spec, spec.default), k).toBeNull();
      expect(spec.description.length, `${k} has a description`).toBeGreaterThan(10);
      const p = configSchema.properties[k] as { minimum?: number; maximum?: number };
      expect(p, `${k} in the REST schema`).toBeDefined();
      expect([p.minimum, p.maximum]).toEqual([spec.min, spec.max]);
    }
    expect(DEFAULT_SCENE_CONFIG.ego_length).toBe(4.5);
    expect(SCENE_SETTINGS.npc_target.max).toBe(MAX_NPCS);
    expect([...RESTART_ONLY_SETTINGS]).toEqual(['max_egos']);
  });

  it('docs/car-in-the-loop.md shows the table as it is (npm run build:docs writes it)', () => {
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'car-in-the-loop.md'), 'utf8');
    expect(withSettingsTable(page), 'run npm run build:docs').toBe(page);
    expect(page).toContain('| `ego_length` | 4.5 | m | 1–30 |');
  });
});

describe('every path refuses the same values', () => {
  let server: VilsServer;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), 'vils-settings-'));
  beforeAll(async () => {
    ({ server, url } = await startServer({ config: { npc_target: 2 } }));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the scene itself and PUT /api/config: 400 with the reason, nothing changed', async () => {
    const before = await (await fetch(`${url}/api/config`)).json();
    for (const [key, value, why] of BAD) {
      expect(() => server.host.scene.configure({ [key]: value })).toThrow(why);
      if (typeof value === 'number' && !Number.isFinite(value)) continue; // JSON has no NaN
      const res = await fetch(`${url}/api/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ npc_target: 3, [key]: value }) });
      expect(res.status, `${key} = ${String(value)}`).toBe(400);
    }
    expect(await (await fetch(`${url}/api/config`)).json()).toEqual(before);
    const ok = await fetch(`${url}/api/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ego_length: 1, speed_limit_mps: 1 }) });
    expect(ok.status).toBe(200);
  });

  it("a scenario's scene: refuses with the file and key", async () => {
    const file = join(PROJECT_ROOT, 'configs', 'scenarios', 'demo_lap.yaml');
    const doc = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>;
    for (const [key, value, why] of BAD) {
      const d = { ...doc, scene: { ...((doc.scene as Record<string, unknown>) ?? {}), [key]: value } };
      await expect(scenarioFromDocument(d, file)).rejects.toThrow(new RegExp(`scene\\.${key}.*${why.source}`));
    }
  });

  it('vils serve --config refuses before it starts, naming the file and the setting', async () => {
    for (const [key, value, why] of BAD) {
      if (typeof value === 'number' && !Number.isFinite(value)) continue;
      const cfg = join(dir, `${key}.json`);
      writeFileSync(cfg, JSON.stringify({ [key]: value }));
      await expect(startServe(['--config', cfg, '--port', '0', '--host', '127.0.0.1', '--no-record', '--model', testModel(), '--log-level', 'silent'])).rejects.toThrow(why);
    }
    const cfg = join(dir, 'scenes.json');
    writeFileSync(cfg, JSON.stringify({ scenes: [{ name: 'b', config: { publish_hz: 5 } }] }));
    await expect(startServe(['--config', cfg, '--port', '0', '--host', '127.0.0.1', '--no-record', '--model', testModel(), '--log-level', 'silent'])).rejects.toThrow(/scenes\[0\]\.config.*publish_hz must be within 10–50 Hz, got 5|publish_hz must be within 10–50 Hz, got 5/);
  });
});
