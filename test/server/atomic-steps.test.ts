/**
 * Atomic steps: with synchronous inference (the default) a policy step never yields to the event loop, so no
 * socket message is handled in the middle of one — an input can only ever arrive between steps, and none
 * has to be held (src/server/inputs.ts). Under a flood of ego_state messages from several clients the count
 * of held inputs stays 0. (With onnxruntime-node's deferred run, VILS_INFERENCE=async, inputs do arrive
 * during steps and are held: test/record/replay.test.ts replays such a session exactly.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { VilsServer } from '../../src/server/app.js';
import { startServer } from '../helpers/server-fixture.js';

let server: VilsServer;
let wsUrl: string;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  ({ server, wsUrl } = await startServer({ config: { npc_target: 40, publish_hz: 50, max_egos: 8 } }));
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await server?.close();
});

describe('atomic steps', () => {
  it('no input arrives during a policy step: none is held under a flood of ego_state messages', async () => {
    const host = server.host;
    expect(host.policy.inference).toBe('sync');
    const stepsBefore = host.scene.steps;
    const callsBefore = host.inputs.calls;
    const timers: NodeJS.Timeout[] = [];
    for (let c = 0; c < 6; c++) {
      const ws = new WebSocket(wsUrl);
      sockets.push(ws);
      await new Promise((r) => ws.once('open', r));
      let k = 0;
      // every 3 ms: hundreds of messages for every policy step of ~2–5 ms
      timers.push(setInterval(() => {
        const t = Date.now() / 1000;
        ws.send(JSON.stringify({ type: 'ego_state', ego_id: `car${c}`, timestamp: t, data: { lat: 37.3645 + 1e-5 * c, lon: 126.7239 + 1e-6 * (k++ % 100), heading: 90, speed: 3 } }));
      }, 3));
    }
    await new Promise((r) => setTimeout(r, 2500));
    for (const t of timers) clearInterval(t);
    await new Promise((r) => setTimeout(r, 200));
    const steps = host.scene.steps - stepsBefore;
    const inputs = host.inputs.calls - callsBefore - steps; // every call but the runner's advances
    expect(steps).toBeGreaterThan(10);
    expect(inputs).toBeGreaterThan(500);
    expect(host.inputs.heldInputs).toBe(0);
    expect(host.status().inference_ms).toMatchObject({ n: expect.any(Number), p99: expect.any(Number) });
  });
});
