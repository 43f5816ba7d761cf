/** The admission of an ego_state as a pure function (issue 24 item 4): what it decides, without a socket. */
import { describe, expect, it } from 'vitest';
import { admitEgoState, clockNotice, type EgoAdmissionContext } from '../../src/server/ego-admission.js';

const NOW = 1.8e9;
const ctx = (over: Partial<EgoAdmissionContext> = {}): EgoAdmissionContext => ({
  sender: 'car-1-bridge', role: 'driver', mayDrive: true, mayDriveEgo: (id) => id !== 'car-2', ...over,
});
const msg = (over: Record<string, unknown> = {}, data: Record<string, unknown> = {}) => ({ type: 'ego_state', data: { lat: 37.3645, lon: 126.7239, heading: 45, speed: 5, ...data }, ...over });

describe('admitEgoState', () => {
  it('takes a fix, with or without a timestamp and heading; the ego id defaults to "ego"', () => {
    expect(admitEgoState(msg({ timestamp: NOW - 0.1, ego_id: 'car-1' }), ctx())).toEqual({ ok: true, egoId: 'car-1', data: msg().data, timestamp: NOW - 0.1 });
    expect(admitEgoState(msg(), ctx())).toMatchObject({ ok: true, egoId: 'ego' });
    expect(admitEgoState({ type: 'ego_state', data: { lat: 37.3645, lon: 126.7239, speed: 1 } }, ctx())).toMatchObject({ ok: true });
  });

  it('refuses with the reason: schema, role, ego id, timestamp', () => {
    expect(admitEgoState(msg({}, { speed: 'fast' }), ctx())).toEqual({ ok: false, error: 'ego_state: data.speed must be number' });
    expect(admitEgoState(msg({ extra: 1 }), ctx())).toEqual({ ok: false, error: 'ego_state: message: unknown field "extra"' });
    expect(admitEgoState(msg(), ctx({ mayDrive: false, role: 'viewer', sender: 'wall-screen' }))).toEqual({ ok: false, error: 'ego_state: wall-screen may only watch (viewer role): sending egos needs a driver token' });
    expect(admitEgoState(msg({ ego_id: 'car-2' }), ctx())).toEqual({ ok: false, error: 'ego_state: car-1-bridge may not drive ego "car-2"' });
    expect(admitEgoState(msg({ timestamp: 1e400 }), ctx())).toMatchObject({ ok: false });
  });
});

describe('clockNotice: what a client is told of its clock', () => {
  const timing = (offsetS: number, source: 'probe' | 'synced' | 'fixes' | 'none') => ({ latencyS: 0.1, offsetS, source, outOfOrder: 0, clockJumps: 0 });
  it('nothing while the clocks agree (synced, or off by at most a second after clock_offset_s)', () => {
    expect(clockNotice(timing(0, 'synced'), 0)).toBeNull();
    expect(clockNotice(timing(0.8, 'probe'), 0)).toBeNull();
    expect(clockNotice(timing(18.2, 'fixes'), 18)).toBeNull(); // GPS time, 18 s ahead of UTC
  });
  it('by how much, and how it is known: measured by probes, or from the fixes alone with their least latency unseen', () => {
    expect(clockNotice(timing(3.2, 'probe'), 0)).toMatchObject({ off: '3.20 s ahead of', offsetS: 3.2 });
    expect(clockNotice(timing(3.2, 'probe'), 0)!.text).toMatch(/measured from your answers to clock_probe/);
    const fixes = clockNotice(timing(-200, 'fixes'), 0)!;
    expect(fixes).toMatchObject({ off: '200 s behind', offsetS: -200 });
    expect(fixes.text).toMatch(/estimated from your fixes alone, so their least latency counts as 0 .*answer clock_probe/);
  });
});
