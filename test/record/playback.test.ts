/** `vils replay --play`: a recording streamed to a stream client and a Foxglove client as if live. */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import wsProtocol from '@foxglove/ws-protocol';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { decodeJson, readRecording } from '../../src/record/index.js';
import { createPlayback } from '../../src/server/playback.js';
import { startServer } from '../helpers/server-fixture.js';
import { FastClock } from './fast-clock.js';

const { FoxgloveClient } = wsProtocol;

describe('playback', () => {
  it('sends the recorded frames at the recorded pace × speed, as npc_states and on the Foxglove channels', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vils-play-'));
    const clock = new FastClock(0);
    const { server } = await startServer({ config: { npc_target: 6, publish_hz: 10 }, clock, epochNow: () => 1.7e9 + clock.now(), recording: { dir } });
    const deadline = performance.now() + 60_000;
    while (server.host.runner.simNow() < 6) {
      if (performance.now() > deadline) throw new Error(`the recording server reached only ${server.host.runner.simNow()} s of simulated time in 60 s (runner ${server.host.runner.state})`);
      await new Promise((r) => setTimeout(r, 5));
    }
    await server.close();
    const file = join(dir, readdirSync(dir)[0]);
    const recorded: Array<{ sim_time_s: number; npcs: Array<{ id: number; x: number }> }> = [];
    for await (const item of readRecording(file, { topics: new Set(['/vils/npc_states']) })) if (item.type === 'message') recorded.push(decodeJson(item.message.data));

    const pb = await createPlayback(file, { speed: 4, logLevel: false });
    const address = await pb.app.listen({ port: 0, host: '127.0.0.1' });
    const ws = new WebSocket(`${address.replace(/^http/, 'ws')}/ws/vils/stream`);
    const frames: Array<{ sim_time_s: number; timestamp: number; npcs: Array<{ id: number; x: number }> }> = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    const fws = new WebSocket(`${address.replace(/^http/, 'ws')}/foxglove`, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
    const fox = new FoxgloveClient({ ws: fws as never });
    let scenes = 0;
    fox.on('advertise', (chs) => { for (const c of chs) if (c.topic === '/vils/scene') fox.subscribe(c.id); });
    fox.on('message', () => scenes++);
    await new Promise((r) => ws.once('open', r));
    const t0 = performance.now();
    await pb.done;
    const wall = (performance.now() - t0) / 1000;
    ws.close();
    fox.close();
    await pb.close();
    expect(frames.length).toBeGreaterThan(40);
    expect(scenes).toBeGreaterThan(40);
    // the recorded pace × 4 (the recording runs a little past 6 s: the virtual clock does not wait for us)
    const span = (recorded.at(-1) as unknown as { timestamp: number }).timestamp - (recorded[0] as unknown as { timestamp: number }).timestamp;
    expect(span).toBeGreaterThan(5.9);
    expect(wall).toBeGreaterThan((span / 4) * 0.9);
    expect(wall).toBeLessThan(span / 4 + 1);
    // the same frames, stamped now
    // (at time 0 there are two frames: the one before the first reset, with no NPCs yet, and the one after)
    const byTime = new Map(recorded.map((f) => [f.sim_time_s, f]));
    for (const f of frames.filter((x) => x.sim_time_s > 0)) {
      const r = byTime.get(f.sim_time_s)!;
      expect(f.npcs.map((n) => [n.id, n.x])).toEqual(r.npcs.map((n) => [n.id, n.x]));
      expect(Math.abs(f.timestamp - Date.now() / 1000)).toBeLessThan(10);
    }
  }, 150_000);
});
