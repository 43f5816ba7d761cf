/**
 * Atomic steps: the policy's inference is one synchronous call between the engine's observe and apply
 * (src/traffic/policy-step.ts), so a policy step never yields to the event loop and no socket message is
 * handled in the middle of one — an input can only ever arrive between the runner's advances
 * (src/session/inputs.ts). Under a flood of ego_state messages from several clients, every input in the log
 * takes effect at the policy step count of the advance logged before it.
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
  it('no input arrives during a policy step: each takes effect at the steps of the advance before it, under a flood of ego_state messages', async () => {
    const host = server.host;
    let lastAdvanceSteps = host.scene.steps;
    let inMidStep = 0;
    const off = host.inputs.onCall((e) => {
      if (e.call.kind === 'advance') lastAdvanceSteps = e.atStep;
      else if (e.atStep !== lastAdvanceSteps) inMidStep++;
    });
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
    off();
    expect(inMidStep).toBe(0);
    expect(host.status().inference_ms).toMatchObject({ n: expect.any(Number), p99: expect.any(Number) });
  });
});
