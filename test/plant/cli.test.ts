import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/cli/commands.js';
import { isVdsimDefaultCar, plantCommand } from '../../src/cli/plant.js';
import { tireParams, vehicleParams } from '../../src/plant/index.js';
import { sharedPath } from '../helpers/shared.js';
import { have } from '../helpers/prerequisites.js';

const vdsim = (name: string) => sharedPath('data', 'vdsim', name);
const dir = mkdtempSync(join(tmpdir(), 'vils-plant-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function capture(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    const code = await plantCommand.run(argv);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('vils plant: usage', () => {
  it('is a Command named plant with a usage line', () => {
    expect(plantCommand.name).toBe('plant');
    expect(plantCommand.usage).toMatch(/^vils plant <iso7401\|iso4138\|iso3888> --vehicle <yaml> --tire <yaml>/);
  });
  it('rejects a missing or unknown procedure, missing files, a bad level or number', async () => {
    await expect(plantCommand.run([])).rejects.toThrow(UsageError);
    await expect(plantCommand.run(['iso9999', '--vehicle', 'v', '--tire', 't'])).rejects.toThrow(/unknown procedure 'iso9999'/);
    await expect(plantCommand.run(['iso7401', '--tire', 't'])).rejects.toThrow(/--vehicle <yaml> is required/);
    await expect(plantCommand.run(['iso7401', '--vehicle', 'v'])).rejects.toThrow(/--tire <yaml> is required/);
    await expect(plantCommand.run(['iso7401', '--vehicle', 'v', '--tire', 't', '--level', 'L5'])).rejects.toThrow(/--level must be one of L1, L2, L3/);
    await expect(plantCommand.run(['iso7401', '--vehicle', 'v', '--tire', 't', '--speed-kmh', 'fast'])).rejects.toThrow(UsageError);
    await expect(plantCommand.run(['iso3888', '--vehicle', 'v', '--tire', 't', '--steer-deg', '3'])).rejects.toThrow(/does not apply to iso3888/);
  });
  it('recognises VDSim’s default car', () => {
    expect(isVdsimDefaultCar(vehicleParams(), tireParams())).toBe(true);
    expect(isVdsimDefaultCar(vehicleParams({ mass: 1400 }), tireParams())).toBe(false);
  });
});

describe.skipIf(!have('shared'))('vils plant on the shared VDSim configs', () => {
  it('iso7401 --json prints one JSON object with the metrics and no traces', async () => {
    const { code, out } = await capture(['iso7401', '--vehicle', vdsim('generic_sedan.yaml'), '--tire', vdsim('generic_pacejka.yaml'), '--json']);
    expect(code).toBe(0);
    const j = JSON.parse(out) as { procedure: string; level: string; vdsim_default_car: boolean; metrics: Record<string, number>; warnings: string[] };
    expect([j.procedure, j.level, j.vdsim_default_car]).toEqual(['iso7401', 'L2', true]);
    expect(j.metrics.yawRateSs).toBeCloseTo(0.528, 1);
    expect(j.metrics.overshoot).toBeGreaterThan(1.04);
    expect('trace' in j.metrics).toBe(false);
    expect(j.warnings).toEqual([]);
  });
  it('iso4138 prints the understeer gradient next to VDSim’s figure for its default car', async () => {
    const { code, out } = await capture(['iso4138', '--vehicle', vdsim('generic_sedan.yaml'), '--tire', vdsim('generic_pacejka.yaml')]);
    expect(code).toBe(0);
    expect(out).toMatch(/understeer gradient K {3}2\d\.\d{3} mrad\/g .*understeer {3}VDSim sedan L2: \+24\.792 mrad\/g/);
  });
  it('iso3888 --plot writes an SVG with the path, yaw rate and lateral acceleration; other cars get no VDSim column', async () => {
    const svg = join(dir, 'dlc.svg');
    const { code, out, err } = await capture(['iso3888', '--vehicle', vdsim('vehicles_sports.yaml'), '--tire', vdsim('tires_default_pacejka.yaml'), '--level', 'L3', '--allow-duplicate-keys', '--plot', svg]);
    expect(out).toMatch(/ISO 3888-2 lane change, 60 km\/h \(pure pursuit, level L3\): (PASS|FAIL)/);
    expect(code).toBe(/: PASS/.test(out) ? 0 : 1); // exit 1 when it prints FAIL
    expect(out).not.toMatch(/VDSim/);
    expect(err).toMatch(/warning: .*appears twice/);
    const text = readFileSync(svg, 'utf8');
    expect(text.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    for (const title of ['Path (top view)', 'Yaw rate', 'Lateral acceleration']) expect(text).toContain(`>${title}</text>`);
    expect((text.match(/<polyline /g) ?? []).length).toBeGreaterThanOrEqual(6);
    expect(text.trimEnd().endsWith('</svg>')).toBe(true);
  });
  it('a config error names the file and key (the vils entry turns it into exit code 1)', async () => {
    await expect(plantCommand.run(['iso7401', '--vehicle', vdsim('vehicles_sports.yaml'), '--tire', vdsim('generic_pacejka.yaml')])).rejects.toThrow(/vehicles_sports\.yaml: key 'roll_center_height_front': duplicate key/);
  });
});
