/**
 * The command line as a new user meets it (issue 16's findings): every subcommand's --help explains each of
 * its flags with its default; `vils geo` refuses a point outside UTM zone 52 and warns when far from the
 * origin; `vils plant iso3888` exits 1 when it prints FAIL; `vils convert-map` rewrites its progress line
 * (\r) only on a terminal; `vils eval --checkpoint` writes nothing into models/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Command } from '../../src/cli/commands.js';
import { COMMAND_HELP } from '../../src/cli/help.js';
import { transpile, type Transpiled } from '../cosim/helpers/transpile.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { PRJ_UTM52N, writeLayer } from '../helpers/shp-writer.js';

async function capture(cmd: Command, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const write = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (err.push(String(s)), true));
  try {
    const code = await cmd.run(argv);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
    write.mockRestore();
  }
}

describe('--help', () => {
  let tx: Transpiled;
  beforeAll(() => {
    tx = transpile(['src/cli/vils.ts']);
  }, 60_000);
  afterAll(() => tx?.remove());
  const vils = (...args: string[]) => execFileSync(process.execPath, [join(tx.dir, 'src', 'cli', 'vils.js'), ...args], { encoding: 'utf8' });

  it('vils --version names the package version and the Node.js it runs on', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(vils('--version').trim()).toBe(`vils ${pkg.version} (node ${process.versions.node})`);
    expect(vils('-V').trim()).toBe(vils('--version').trim());
  });

  it('every subcommand explains each flag of its usage line, with its default', async () => {
    const names = [...vils('--help').matchAll(/^ {2}([a-z][a-z0-9-]*) {2,}/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThanOrEqual(15);
    const modules = await Promise.all(readdirSync(join(PROJECT_ROOT, 'src', 'cli')).filter((f) => f.endsWith('.ts')).map((f) => import(`../../src/cli/${f.replace(/\.ts$/, '.js')}`) as Promise<Record<string, unknown>>));
    const commands = new Map<string, Command>();
    for (const m of modules) for (const v of Object.values(m)) if (v && typeof v === 'object' && 'usage' in v && 'name' in v && 'run' in v) commands.set((v as Command).name, v as Command);
    const missing: string[] = [];
    for (const name of names) {
      if (name === 'start') continue; // vils start takes vils serve's flags
      const help = COMMAND_HELP[name];
      if (!help) {
        missing.push(`${name}: no help`);
        continue;
      }
      const cmd = commands.get(name);
      expect(cmd, name).toBeDefined();
      for (const flag of new Set(cmd!.usage.match(/--[a-z][a-z0-9-]*/g) ?? [])) {
        // each flag on a line of its own, explained, with a default in brackets unless it is required
        const line = help.split('\n').find((l) => new RegExp(`^ {2}(.*[ ,])?${flag}(?![a-z0-9-])`).test(l));
        if (!line) missing.push(`${name}: ${flag} not explained`);
        else if (!/\[.+\]|\(required\)|^ {2}<|--play/.test(line) && !/\[/.test(help.split('\n')[help.split('\n').indexOf(line) + 1] ?? '')) missing.push(`${name}: ${flag} has no default`);
      }
    }
    expect(missing).toEqual([]);
    const serve = vils('serve', '--help');
    expect(serve).toMatch(/^usage: vils serve /);
    expect(serve).toMatch(/\n {2}--port <n> +TCP port .*\[8000\]/);
    expect(serve).toMatch(/\n {2}--access <file\.json> +tokens and roles/);
    expect(vils('start', '--help')).toMatch(/\n {2}--port <n> +TCP port .*\[8000\]/);
  }, 60_000);
});

describe('vils geo', () => {
  it('refuses a point outside UTM zone 52 (it used to print zone-52 numbers for Munich), and says which zone it is in', async () => {
    const { geoCommand } = await import('../../src/cli/geo.js');
    await expect(capture(geoCommand, ['48.1', '11.5'])).rejects.toThrow(/48\.1, 11\.5 is in UTM zone 32N, not 52N .*latitude first/);
    await expect(capture(geoCommand, ['--', '-33.9', '151.2'])).rejects.toThrow(/southern hemisphere \(UTM zone 56S\)/);
    await expect(capture(geoCommand, ['37.5', '127', '--origin', '48.1,11.5'])).rejects.toThrow(/the origin 48\.1, 11\.5 is in UTM zone 32N/);
  });

  it('warns plainly near the zone edge and far from the origin; near the origin, no warning', async () => {
    const { geoCommand } = await import('../../src/cli/geo.js');
    const edge = await capture(geoCommand, ['37.5', '124.9']);
    expect(edge.code).toBe(0);
    expect(edge.err).toMatch(/warning: 124\.9° is outside UTM zone 52 \(126–132° E\) but within 3° of it/);
    expect(edge.err).toMatch(/warning: the point is 16\d km from the origin 37\.3645, 126\.7239/);
    const near = await capture(geoCommand, ['37.366', '126.722']);
    expect(near.code).toBe(0);
    expect(near.err).toBe('');
    const json = await capture(geoCommand, ['37.5', '128', '--json']);
    expect(JSON.parse(json.out).warnings).toEqual([expect.stringMatching(/is 11\d km from the origin/)]);
  });
});

describe('vils plant iso3888', () => {
  it('exits 1 when it prints FAIL, 0 when it prints PASS', async () => {
    const { plantCommand } = await import('../../src/cli/plant.js');
    const car = ['--vehicle', join(PROJECT_ROOT, 'configs', 'vehicles', 'sedan.yaml'), '--tire', join(PROJECT_ROOT, 'configs', 'tires', 'default_pacejka.yaml')];
    const fail = await capture(plantCommand, ['iso3888', ...car, '--speed-kmh', '110', '--mu', '0.4']);
    expect(fail.out).toMatch(/ISO 3888-2 lane change, 110 km\/h .*: FAIL/);
    expect(fail.code).toBe(1);
    const failJson = await capture(plantCommand, ['iso3888', ...car, '--speed-kmh', '110', '--mu', '0.4', '--json']);
    expect(JSON.parse(failJson.out).metrics.pass).toBe(false);
    expect(failJson.code).toBe(1);
    const pass = await capture(plantCommand, ['iso3888', ...car, '--speed-kmh', '30']);
    expect(pass.out).toMatch(/ISO 3888-2 lane change, 30 km\/h .*: PASS/);
    expect(pass.code).toBe(0);
    // the other procedures have no verdict: 0
    expect((await capture(plantCommand, ['iso4138', ...car])).code).toBe(0);
  }, 60_000);
});

describe('vils convert-map progress', () => {
  it('writes no \\r progress when stderr is not a terminal (a log file or a pipe)', async () => {
    // two lanes of a small NGII release (UTM 52N): enough for a map
    const dir = mkdtempSync(join(tmpdir(), 'vils-ngii-'));
    const E0 = 302000, N0 = 4123000;
    const P = (e: number, n: number): [number, number, number] => [E0 + e, N0 + n, 30];
    writeLayer(dir, {
      name: 'A1_NODE', shapeType: 11, prj: PRJ_UTM52N, cpg: 'UTF-8', fields: [{ name: 'ID', type: 'C', length: 12 }, { name: 'NodeType', type: 'C', length: 2 }],
      records: [{ points: [P(0, 0)], attributes: { ID: 'N1', NodeType: '1' } }, { points: [P(100, 0)], attributes: { ID: 'N2', NodeType: '1' } }],
    });
    writeLayer(dir, {
      name: 'A2_LINK', shapeType: 13, prj: PRJ_UTM52N, cpg: 'UTF-8',
      fields: [
        { name: 'ID', type: 'C', length: 12 }, { name: 'LinkType', type: 'C', length: 2 }, { name: 'MaxSpeed', type: 'N', length: 3 },
        { name: 'R_LinkID', type: 'C', length: 12 }, { name: 'L_LinkID', type: 'C', length: 12 }, { name: 'FromNodeID', type: 'C', length: 12 }, { name: 'ToNodeID', type: 'C', length: 12 },
      ],
      // 600 short lanes: progress is reported every 500 features
      records: Array.from({ length: 600 }, (_, i) => ({ points: [P(0, i * 4), P(100, i * 4)], attributes: { ID: `L${i}`, LinkType: '6', MaxSpeed: 50, R_LinkID: null, L_LinkID: null, FromNodeID: 'N1', ToNodeID: 'N2' } })),
    });
    const out = join(mkdtempSync(join(tmpdir(), 'vils-conv-')), 'm.json');
    const { convertMapCommand } = await import('../../src/cli/convert-map.js');
    const isTTY = process.stderr.isTTY;
    Object.defineProperty(process.stderr, 'isTTY', { value: false, configurable: true });
    try {
      const r = await capture(convertMapCommand, [dir, '--out', out]);
      expect(r.code).toBe(0);
      expect(r.err).not.toContain('\r');
      expect(r.out).toMatch(/wrote .*m\.json/);
      Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
      const t = await capture(convertMapCommand, [dir, '--out', out]);
      expect(t.err).toMatch(/\r {2}reading A2_LINK: \d+ features…/);
    } finally {
      Object.defineProperty(process.stderr, 'isTTY', { value: isTTY, configurable: true });
    }
  });
});

describe('vils eval --checkpoint', () => {
  it('writes nothing into models/ unless asked (--model-out)', async () => {
    const { parseEvalArgs } = await import('../../src/cli/eval.js');
    const { resolvePolicyModel } = await import('../../src/policy/model-files.js');
    const { writeTorchZip } = await import('../helpers/torch-writer.js');
    const { randomLateFusionTensors } = await import('../helpers/policy-fixtures.js');
    const dir = mkdtempSync(join(tmpdir(), 'vils-eval-ckpt-'));
    const ckpt = join(dir, 'my_policy.pt');
    writeFileSync(ckpt, writeTorchZip(randomLateFusionTensors(3)));
    const before = readdirSync(join(PROJECT_ROOT, 'models'));
    const args = parseEvalArgs(['--scenes', 'a.json', '--checkpoint', ckpt]);
    const built = resolvePolicyModel({ checkpoint: args.checkpoint, out: args.modelOut });
    expect(built.startsWith(tmpdir())).toBe(true);
    expect(readdirSync(join(PROJECT_ROOT, 'models'))).toEqual(before);
    const keep = join(dir, 'kept.onnx');
    const kept = parseEvalArgs(['--scenes', 'a.json', '--checkpoint', ckpt, '--model-out', keep]);
    expect(resolvePolicyModel({ checkpoint: kept.checkpoint, out: kept.modelOut })).toBe(keep);
    expect(existsSync(keep)).toBe(true);
    expect(() => parseEvalArgs(['--scenes', 'a.json', '--model-out', keep])).toThrow(/--model-out goes with --checkpoint/);
  });
});
