/**
 * tick() allocates nothing: state, stage buffers and scratch are pre-allocated typed arrays and fields. The
 * check runs the plant as Node runs it in production (TypeScript's own emit, plain ESM, a fresh process with
 * --expose-gc): vitest's module transform changes V8's inlining enough to make in-process heap figures flaky.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';

function transpilePlant(outDir: string): void {
  const srcDir = join(PROJECT_ROOT, 'src', 'plant');
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
  for (const file of walk(srcDir).filter((f) => f.endsWith('.ts'))) {
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, useDefineForClassFields: true },
    }).outputText;
    const dest = join(outDir, relative(srcDir, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, out);
  }
}

const PROBE = `
import { SimSession } from './session.js';
import { vehicleParams } from './params/vehicle.js';
import { tireParams } from './params/tire.js';
const level = process.argv[2];
const s = SimSession.create({ level, vehicle: vehicleParams(), tires: tireParams(), initial: { vx: 20 } });
s.setInput({ steer: 0.02, throttle: 0.15 });
for (let i = 0; i < 30000; i++) s.tick(0.005);
gc();
const h0 = process.memoryUsage().heapUsed;
for (let i = 0; i < 20000; i++) s.tick(0.005);
console.log(JSON.stringify({ bytesPerTick: (process.memoryUsage().heapUsed - h0) / 20000, vx: s.truth.vx }));
`;

describe('allocation-free tick', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vils-plant-alloc-'));
  transpilePlant(dir);
  writeFileSync(join(dir, 'probe.mjs'), PROBE);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const level of ['L1', 'L2', 'L3']) {
    it(`${level}: heap growth < 16 B/tick after warm-up (one object per RK stage would be ~1 kB)`, () => {
      const r = spawnSync(process.execPath, ['--expose-gc', join(dir, 'probe.mjs'), level], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      const { bytesPerTick, vx } = JSON.parse(r.stdout) as { bytesPerTick: number; vx: number };
      expect(vx).toBeGreaterThan(5); // the probe really drove
      expect(bytesPerTick).toBeLessThan(16);
    });
  }
});
