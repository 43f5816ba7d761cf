/** Starts a real VILS server on an ephemeral port for tests, and a small WebSocket client. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createServer, type ServerOptions, type VilsServer } from '../../src/server/app.js';
import { writeModelFromCheckpoint } from '../../src/policy/index.js';
import { PROJECT_ROOT } from './shared.js';

let modelPath: string | null = null;
/** The S75 model, from the checkpoint the repository carries (the same file as ../shared's): without ../shared a
 * random-weight net drove the NPCs, and tests of what NPCs do (people-claim, the signals page) failed. */
export function testModel(): string {
  if (modelPath) return modelPath;
  const dir = mkdtempSync(join(tmpdir(), 'vils-srv-'));
  modelPath = join(dir, 'policy.onnx');
  writeModelFromCheckpoint(join(PROJECT_ROOT, 'models', 'checkpoints', 'policy_S75_2025-05-21_u4800.pt'), modelPath);
  return modelPath;
}

export async function startServer(opts: ServerOptions & { listenHost?: string; listenPort?: number } = {}): Promise<{ server: VilsServer; url: string; wsUrl: string }> {
  const { listenHost, listenPort, ...rest } = opts;
  const server = await createServer({ modelPath: testModel(), logLevel: false, ...rest });
  await server.app.listen({ port: listenPort ?? 0, host: listenHost ?? '127.0.0.1' });
  const port = (server.app.server.address() as { port: number }).port;
  const address = `http://127.0.0.1:${port}`;
  return { server, url: address, wsUrl: `${address.replace(/^http/, 'ws')}/ws/vils/stream` };
}

export class TestClient {
  readonly ws: WebSocket;
  readonly messages: Array<Record<string, any>> = [];
  private waiters: Array<{ pred: (m: Record<string, any>) => boolean; resolve: (m: Record<string, any>) => void }> = [];
  closeCode: number | null = null;

  constructor(url: string, options?: WebSocket.ClientOptions) {
    this.ws = new WebSocket(url, options);
    this.ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as Record<string, any>;
      m.__received = performance.now();
      this.messages.push(m);
      this.waiters = this.waiters.filter((w) => {
        if (w.pred(m)) {
          w.resolve(m);
          return false;
        }
        return true;
      });
    });
    this.ws.on('close', (code) => {
      this.closeCode = code;
    });
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.ws.readyState === WebSocket.OPEN) return resolve();
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
  }

  send(obj: unknown): void {
    this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj));
  }

  /**
   * The next message matching pred. The timeout only guards against a hang: it is at least 20 s, so that a busy
   * machine never fails a test that would pass on a quiet one.
   */
  next(pred: (m: Record<string, any>) => boolean, timeoutMs = 20_000): Promise<Record<string, any>> {
    const guardMs = Math.max(timeoutMs, 20_000);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching message within ${guardMs} ms`)), guardMs);
      this.waiters.push({ pred, resolve: (m) => { clearTimeout(timer); resolve(m); } });
    });
  }

  closed(timeoutMs = 3000): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.closeCode !== null) return resolve(this.closeCode);
      const timer = setTimeout(() => reject(new Error('not closed')), timeoutMs);
      this.ws.once('close', (code) => { clearTimeout(timer); resolve(code); });
    });
  }

  close(): void {
    this.ws.close();
  }
}
