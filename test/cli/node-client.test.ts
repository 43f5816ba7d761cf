/**
 * examples/node-client.mjs as a user runs it: started before the server, it says it cannot reach it (one
 * line, no stack trace) and keeps trying; it connects and drives when the server comes; it reconnects when
 * the server goes away and comes back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer as createTcpServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { VilsServer } from '../../src/server/app.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { startServer } from '../helpers/server-fixture.js';

const freePort = () => new Promise<number>((resolve) => {
  const s = createTcpServer();
  s.listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => resolve(p));
  });
});

let child: ChildProcess | null = null;
let server: VilsServer | null = null;
afterAll(async () => {
  child?.kill('SIGKILL');
  await server?.close();
});

describe('examples/node-client.mjs', () => {
  it('waits for the server without a stack trace, drives when it comes, reconnects when it comes back', async () => {
    const port = await freePort();
    const lines: string[] = [];
    child = spawn(process.execPath, [join(PROJECT_ROOT, 'examples', 'node-client.mjs'), `ws://127.0.0.1:${port}/ws/vils/stream`, '--ego', 'example-car'], { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const s of [child.stdout!, child.stderr!]) s.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    const waitFor = async (re: RegExp, ms = 15_000) => {
      const end = Date.now() + ms;
      while (!lines.some((l) => re.test(l))) {
        if (Date.now() > end) throw new Error(`no line matching ${re}:\n${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await waitFor(/cannot reach ws:\/\/127\.0\.0\.1:\d+\/ws\/vils\/stream: ECONNREFUSED/);
    await waitFor(/reconnecting in 1\.0 s/);
    expect(lines.join('\n')).not.toMatch(/at .*\(.*:\d+:\d+\)|Error:/);
    const start = async () => {
      const s = await startServer({ config: { npc_target: 3 }, listenPort: port });
      server = s.server;
    };
    await start();
    await waitFor(/connected to ws:/);
    await waitFor(/step \d+: 3 NPCs/);
    const egoBy = Date.now() + 5000;
    while (!server!.host.scene.hasEgo('example-car') && Date.now() < egoBy) await new Promise((r) => setTimeout(r, 20));
    expect(server!.host.scene.hasEgo('example-car')).toBe(true);
    // the server goes away and comes back: the client says so and drives on
    await server!.close();
    server = null;
    await waitFor(/connection closed \(1001: server shutting down\); reconnecting in 0\.5 s|connection closed \(\d+[^)]*\); reconnecting/);
    const before = lines.length;
    await start();
    const end = Date.now() + 15_000;
    while (!lines.slice(before).some((l) => /step \d+: 3 NPCs/.test(l))) {
      if (Date.now() > end) throw new Error(`did not reconnect:\n${lines.slice(before).join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(child.exitCode).toBeNull();
    expect(lines.join('\n')).not.toMatch(/at .*\(.*:\d+:\d+\)/);
  }, 60_000);
});
