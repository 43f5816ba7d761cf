/**
 * `vils realtime`'s plant under the time conductor (src/cosim/realtime.ts): in realtime the plant ticks on its
 * own schedule whatever an external asset does; in lockstep it ticks only as fast as the external asset
 * reports, never more than one step apart from it. On a virtual clock, so the loop runs as fast as it can.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PLANT_ASSET, RealtimeServer } from '../../src/cosim/realtime.js';
import { VirtualClock } from '../../src/time/clock.js';
import { defaultTimeSettings, type TimeSettings } from '../../src/time/index.js';
import { world } from './helpers/udp.js';

const open: RealtimeServer[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

/** A virtual clock that calls `onSleep` at every sleep of the loop (one per tick). */
class HookedClock extends VirtualClock {
  onSleep: () => void = () => {};
  override async sleepUntil(t: number): Promise<void> {
    this.onSleep();
    await super.sleepUntil(t);
  }
}

async function server(time: TimeSettings, tEndS: number) {
  const clock = new HookedClock();
  const s = await RealtimeServer.create({ world: world(), dt: 0.005, cmdTimeoutS: 0.1, cmdPort: 0, statePort: 9, bindAddress: '127.0.0.1', clock, tEndS, time });
  open.push(s);
  return { s, clock };
}

describe('vils realtime under the time conductor', () => {
  it('realtime: an external asset that never reports holds nothing; the plant ticks every tick and the asset is lagging', async () => {
    const { s } = await server(defaultTimeSettings('realtime'), 1);
    s.time.attach('ctl', { stepUs: 5000 });
    await s.run();
    const c = s.counters();
    expect(c.heldTicks).toBe(0);
    expect(c.ticks).toBe(200);
    const t = s.timeStatus();
    expect(t.assets.find((a) => a.name === PLANT_ASSET)).toMatchObject({ t_s: 1, lagging: false });
    expect(t.lagging).toEqual(['ctl']);
    expect(t.violations).toBe(0);
  });

  it('lockstep: the plant ticks only when the external asset has reported the step; never more than one step apart', async () => {
    const { s, clock } = await server({ ...defaultTimeSettings('lockstep'), step_ms: 5, dmax_ms: 5 }, 0.5);
    s.time.attach('ctl', { stepUs: 5000 });
    let sleeps = 0;
    let worst = 0;
    clock.onSleep = () => {
      const c = s.time.conductor;
      const gap = Math.abs((c.assetTimeUs(PLANT_ASSET) ?? 0) - (c.assetTimeUs('ctl') ?? 0));
      worst = Math.max(worst, gap);
      // the controller keeps up on every third loop tick only: it reports the step it is allowed to
      if (++sleeps % 3 === 0 && c.has('ctl')) s.time.report('ctl', c.timeUs);
    };
    await s.run();
    const c = s.counters();
    const plantTicks = c.ticks - c.heldTicks;
    expect(plantTicks).toBe(100); // 0.5 s at 5 ms
    expect(c.heldTicks).toBeGreaterThan(150); // about two of every three loop ticks waited for the controller
    expect(worst).toBeLessThanOrEqual(5000);
    const t = s.timeStatus();
    expect(t.violations).toBe(0);
    expect(t.assets.find((a) => a.name === PLANT_ASSET)!.held).toBeGreaterThan(50);
  });
});
