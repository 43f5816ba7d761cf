/**
 * No silent hangs (issue 27): examples/time_asset.py with no VILS server at its address says so on stderr after
 * a couple of seconds (the address and how to start a server with that asset port), keeps trying for
 * --silence-s, then exits 2 with the same advice. The timeout is a hang guard; the assertions are on what the
 * script says and its exit status.
 */
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PYTHON } from '../support/prerequisites.mjs';

const PY_ASSET = fileURLToPath(new URL('../../examples/time_asset.py', import.meta.url));

/** a UDP port nobody listens on (bound, read, released) */
function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createSocket('udp4');
    s.on('error', reject);
    s.bind(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

describe('examples/time_asset.py with no server', () => {
  it('says that no server answers at the address and how to start one, then exits 2', async () => {
    const port = await freeUdpPort();
    const proc = spawn(PYTHON, [PY_ASSET, '--port', String(port), '--name', 'lonely', '--silence-s', '4'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    let firstHint = '';
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (!firstHint && err.includes('\n')) firstHint = err.split('\n')[0];
    });
    const code = await new Promise<number | null>((r) => proc.on('exit', (c) => r(c)));
    expect(code).toBe(2);
    // first the hint while it keeps trying, then the final word
    expect(firstHint).toContain(`lonely: no VILS time server answers at 127.0.0.1:${port} (UDP) yet; still trying for 4 s in all`);
    expect(firstHint).toContain(`vils serve --asset-port ${port}`);
    expect(err).toContain(`lonely: no VILS time server answered at 127.0.0.1:${port} (UDP) within 4 s; giving up`);
    expect(err).toContain(`--set time.asset_port=${port}`);
    expect(err.trim().split('\n')).toHaveLength(2);
  }, 60_000);
});
