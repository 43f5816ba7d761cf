/**
 * `npm ci` installs onnxruntime-node for the CPU with any npm (issue 46 item 1): its install script, which downloads
 * the CUDA libraries on Linux x64 unless switched off, finds its switch turned to "skip" by the package that stands
 * in for global-agent (install/onnxruntime-cpu-only), so npm 10 — which has no allowScripts — neither fails on a
 * machine that reaches only the npm registry nor downloads hundreds of MB on one that reaches everything, and npm 11
 * has no .npmrc key to warn about. The script is run here as npm runs it, with a preload that records and refuses
 * every connection; .ci/run installs the fresh clone with npm 10 itself.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';

const ORT = join(PROJECT_ROOT, 'node_modules', 'onnxruntime-node');
const SWITCHES = ['ONNXRUNTIME_NODE_INSTALL', 'npm_config_onnxruntime_node_install', 'ONNXRUNTIME_NODE_INSTALL_CUDA', 'npm_config_onnxruntime_node_install_cuda'];

/** onnxruntime-node's install script as npm runs it for a dependency: in its folder, the npm variables of the root. */
function runInstallScript(extra: Record<string, string>): { status: number | null; network: string[]; out: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_local_prefix: PROJECT_ROOT, npm_package_json: join(ORT, 'package.json'), npm_lifecycle_event: 'postinstall' };
  for (const s of SWITCHES) delete env[s];
  env.NODE_OPTIONS = `--require ${join(PROJECT_ROOT, 'test', 'install', 'no-network.cjs')}`;
  const r = spawnSync(process.execPath, ['./script/install'], { cwd: ORT, env: { ...env, ...extra }, encoding: 'utf8', timeout: 60_000 });
  const out = `${r.stdout}${r.stderr}`;
  return { status: r.status, network: [...out.matchAll(/^NETWORK (\S+)/gm)].map((m) => m[1]), out };
}

const cudaFiles = () => {
  const dir = join(ORT, 'bin', 'napi-v6', 'linux', 'x64');
  return existsSync(dir) ? readdirSync(dir).filter((f) => /providers_(cuda|tensorrt)/.test(f)) : [];
};

describe('onnxruntime-node installs for the CPU with any npm', () => {
  it('package.json puts install/onnxruntime-cpu-only in global-agent\'s place, and that is what the install script loads', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; overrides: Record<string, string>; allowScripts: Record<string, boolean> };
    expect(pkg.dependencies['global-agent']).toBe('file:install/onnxruntime-cpu-only');
    expect(pkg.overrides['global-agent']).toBe('$global-agent');
    expect(pkg.allowScripts['onnxruntime-node']).toBe(false); // npm 11 does not even run it
    const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; link?: boolean }> };
    expect(lock.packages['node_modules/global-agent']).toEqual({ resolved: 'install/onnxruntime-cpu-only', link: true });
    const resolved = createRequire(join(ORT, 'script', 'install.js')).resolve('global-agent');
    expect(realpathSync(resolved)).toBe(join(PROJECT_ROOT, 'install', 'onnxruntime-cpu-only', 'index.js'));
  });

  it('global-agent is used by nothing but that install script (the stand-in leaves its proxy support out)', () => {
    const users: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (name === 'node_modules') continue;
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(c|m)?js$/.test(name) && readFileSync(p, 'utf8').includes('global-agent')) users.push(p.slice(ORT.length + 1));
      }
    };
    walk(ORT);
    expect(users).toEqual(['script/install.js']);
  });

  it('run as npm runs it, with nothing set, the script reaches for no host and exits 0; no CUDA library is there', () => {
    const r = runInstallScript({});
    expect(r.network, r.out).toEqual([]);
    expect(r.status, r.out).toBe(0);
    expect(cudaFiles()).toEqual([]);
  });

  it('asked for the CUDA build (ONNXRUNTIME_NODE_INSTALL=cuda12), it still tries to fetch it: only the unasked download is gone', () => {
    const r = runInstallScript({ ONNXRUNTIME_NODE_INSTALL: 'cuda12' });
    expect(r.network.length, r.out).toBeGreaterThan(0);
    expect(cudaFiles()).toEqual([]);
  });

  it('.ci/run installs its fresh clone with npm 10 and fails on an npm warning or a GPU library', () => {
    const run = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
    expect(run).toMatch(/^npx -y npm@10 ci 2>&1 \| tee "\$log"$/m);
    expect(run).toMatch(/grep -i 'npm warn' "\$log"/);
    expect(run).toMatch(/libonnxruntime_providers_cuda/);
    expect(existsSync(join(PROJECT_ROOT, '.npmrc'))).toBe(false); // npm 11: "Unknown project config"
  });
});
