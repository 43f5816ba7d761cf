/**
 * A test case served live on a stepped clock, as the real-car tests drive it: `vils serve --scenario <case>
 * --story-ego car` on a port of its own, the server's epoch clock T0 + the stepped clock, and one WebSocket client
 * (the car) connected to its stream.
 */
import { startServe, type ServeHandle } from '../../src/cli/serve.js';
import { TestClient, testModel } from './server-fixture.js';
import { SteppedClock } from './stepped-clock.js';

/** the server's wall clock at the stepped clock's 0 [s since the Unix epoch] */
export const LIVE_T0 = 1.8e9;

export async function serveCase(file: string, recordDir?: string): Promise<{ serve: ServeHandle; client: TestClient; clock: SteppedClock; url: string }> {
  const clock = new SteppedClock();
  const record = recordDir ? ['--record-dir', recordDir] : ['--no-record'];
  const serve = await startServe(['--scenario', file, '--story-ego', 'car', '--port', '0', '--host', '127.0.0.1', ...record, '--model', testModel(), '--log-level', 'silent'], { clock, epochNow: () => LIVE_T0 + clock.now() });
  const url = serve.address;
  const client = new TestClient(`${url.replace(/^http/, 'ws')}/ws/vils/stream`);
  await client.opened();
  return { serve, client, clock, url };
}
