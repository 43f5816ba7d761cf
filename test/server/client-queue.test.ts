import { describe, expect, it } from 'vitest';
import { PacedLoop } from '../../src/server/loop.js';
import { ClientChannel } from '../../src/server/clients.js';

describe('paced loop', () => {
  it('counts overruns and skips missed ticks instead of bunching them', async () => {
    const starts: number[] = [];
    let slow = true;
    const loop = new PacedLoop(20, async (now) => {
      starts.push(now);
      if (slow && starts.length === 3) await new Promise((r) => setTimeout(r, 75)); // ≈ 3.75 periods
    });
    loop.start();
    await new Promise((r) => setTimeout(r, 260));
    loop.stop();
    slow = false;
    expect(loop.stats.overruns).toBe(1);
    expect(loop.stats.skippedTicks).toBeGreaterThanOrEqual(3);
    const gaps = starts.slice(1).map((t, i) => t - starts[i]);
    expect(Math.min(...gaps.slice(3))).toBeGreaterThan(10); // no back-to-back catch-up ticks after the overrun
  });
});

describe('client send queue', () => {
  it('keeps at most max_queue frames for a slow client, dropping the oldest and counting them', () => {
    const callbacks: Array<() => void> = [];
    const sent: string[] = [];
    const socket = { OPEN: 1, readyState: 1, send: (f: string, _o: unknown, cb: () => void) => { sent.push(f); callbacks.push(cb); } };
    const ch = new ClientChannel(socket as never, 1, () => 3);
    for (let i = 0; i < 10; i++) ch.send(`f${i}`); // the socket never finishes writing f0
    expect(sent).toEqual(['f0']);
    expect(ch.dropped).toBe(6); // f1..f6 dropped; f7, f8, f9 wait
    callbacks.shift()!();
    callbacks.shift()!();
    expect(sent).toEqual(['f0', 'f7', 'f8']);
  });
});
