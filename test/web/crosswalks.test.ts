/**
 * The web map's reading of walk signals (src/web/walk-states.ts): a frame's signal entry that names crosswalks is a
 * walk group; its pedestrian state comes from its `walk` field when present, else from its `state`.
 */
import { describe, expect, it } from 'vitest';
import { signalSummary } from '../../src/web/signal-summary.js';
import { crosswalkStates, walkStateOf } from '../../src/web/walk-states.js';
import type { SignalState } from '../../src/web/types.js';

// only the fields the reading looks at (a frame's entry has all the schema requires)
const entry = (id: string, state: string, extra: Partial<SignalState> = {}): SignalState => ({ id, junction: 'J1', state, ...extra }) as SignalState;

describe('walk states on the web map', () => {
  it('reads a walk group\'s state from `walk`, else from its signal state', () => {
    expect(['green', 'green_yield', 'yellow', 'red', 'off'].map((s) => walkStateOf(entry('W', s)))).toEqual(['walk', 'walk', 'flashing', 'dont_walk', null]);
    expect(walkStateOf({ state: 'green', walk: 'flashing' } as SignalState)).toBe('flashing');
    expect(walkStateOf({ state: 'green', walk: 'none' } as unknown as SignalState)).toBeNull();
    expect(walkStateOf({ state: 'flashing' } as unknown as SignalState)).toBe('flashing');
  });

  it('gives each governed crosswalk its group\'s state; vehicle groups and unknown states give none', () => {
    const signals = [
      entry('J1.A', 'green', { lanes: ['L1'] }),
      entry('J1.W1', 'red', { crosswalks: ['CW1', 'CW2'] }),
      entry('J1.W2', 'green', { crosswalks: ['CW3'] }),
      entry('J1.W3', 'off', { crosswalks: ['CW4'] }),
      entry('J1.W4', 'green', { crosswalks: ['CW1'] }),
    ];
    expect([...crosswalkStates(signals)]).toEqual([['CW1', 'dont_walk'], ['CW2', 'dont_walk'], ['CW3', 'walk']]);
    expect(crosswalkStates(undefined).size).toBe(0);
  });
});

describe('the status bar\'s signal summary with walk groups', () => {
  it('counts walk groups apart, by what they show people', () => {
    const many = [
      ...['A', 'B', 'C', 'D', 'E'].map((x, i) => entry(`J1.${x}`, i < 2 ? 'green' : 'red')),
      entry('J1.walk.1', 'green', { walk: 'walk', crosswalks: ['C1'] }),
      entry('J1.walk.2', 'yellow', { walk: 'flashing', crosswalks: ['C2'] }),
      entry('J1.walk.3', 'red', { walk: 'dont_walk', crosswalks: ['C3'] }),
      entry('J1.walk.4', 'red', { walk: 'dont_walk', crosswalks: ['C4'] }),
    ];
    expect(signalSummary(many)?.text).toBe("5 groups: 2 green · 3 red · 4 walk signals: 1 walk · 1 flashing · 2 don't walk");
    expect(signalSummary(many.slice(0, 2))?.text).toBe('J1.A green · J1.B green');
  });
});
