/** The admission of an ego_state as a pure function (issue 24 item 4): what it decides, without a socket. */
import { describe, expect, it } from 'vitest';
import { admitEgoState, type EgoAdmissionContext } from '../../src/server/ego-admission.js';

const NOW = 1.8e9;
const ctx = (over: Partial<EgoAdmissionContext> = {}): EgoAdmissionContext => ({
  sender: 'car-1-bridge', role: 'driver', mayDrive: true, mayDriveEgo: (id) => id !== 'car-2', epochNowS: NOW, clockOffsetS: 0, egoTimeoutS: 0.5, clockTold: false, ...over,
});
const msg = (over: Record<string, unknown> = {}, data: Record<string, unknown> = {}) => ({ type: 'ego_state', data: { lat: 37.3645, lon: 126.7239, heading: 45, speed: 5, ...data }, ...over });

describe('admitEgoState', () => {
  it('takes a current fix, with or without a timestamp and heading; the ego id defaults to "ego"', () => {
    expect(admitEgoState(msg({ timestamp: NOW - 0.1, ego_id: 'car-1' }), ctx())).toEqual({ ok: true, egoId: 'car-1', data: msg().data, timestamp: NOW - 0.1, clockNotice: undefined });
    expect(admitEgoState(msg(), ctx())).toMatchObject({ ok: true, egoId: 'ego' });
    expect(admitEgoState({ type: 'ego_state', data: { lat: 37.3645, lon: 126.7239, speed: 1 } }, ctx())).toMatchObject({ ok: true });
  });

  it('refuses with the reason: schema, role, ego id, timestamp, staleness', () => {
    expect(admitEgoState(msg({}, { speed: 'fast' }), ctx())).toEqual({ ok: false, error: 'ego_state: data.speed must be number' });
    expect(admitEgoState(msg({ extra: 1 }), ctx())).toEqual({ ok: false, error: 'ego_state: message: unknown field "extra"' });
    expect(admitEgoState(msg(), ctx({ mayDrive: false, role: 'viewer', sender: 'wall-screen' }))).toEqual({ ok: false, error: 'ego_state: wall-screen may only watch (viewer role): sending egos needs a driver token' });
    expect(admitEgoState(msg({ ego_id: 'car-2' }), ctx())).toEqual({ ok: false, error: 'ego_state: car-1-bridge may not drive ego "car-2"' });
    expect(admitEgoState(msg({ timestamp: NOW - 0.6 }), ctx())).toMatchObject({ ok: false, error: 'ego_state: stale fix: its timestamp is 0.60 s old on the server clock (more than ego_timeout_s 0.5); not used' });
  });

  it('says once that a clock is off (after clock_offset_s), and a stale fix from it is still refused', () => {
    expect(admitEgoState(msg({ timestamp: NOW + 3.2 }), ctx())).toMatchObject({ ok: true, clockNotice: { off: '3.20 s ahead of' } });
    expect(admitEgoState(msg({ timestamp: NOW + 3.2 }), ctx({ clockTold: true })).clockNotice).toBeUndefined();
    expect(admitEgoState(msg({ timestamp: NOW + 18 }), ctx({ clockOffsetS: 18 }))).toMatchObject({ ok: true, clockNotice: undefined }); // GPS time, 18 s ahead of UTC
    const stale = admitEgoState(msg({ timestamp: NOW - 200 }), ctx());
    expect(stale).toMatchObject({ ok: false, clockNotice: { off: '200 s behind', offsetS: -200 } });
  });
});
