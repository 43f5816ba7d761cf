/**
 * One contact definition for the live scene (src/traffic/contacts.ts, issue 41 item 3): the rotated boxes at the
 * vehicles' real size. FMTC's uncounted case — two NPCs near J5, headings 57° and −101°, overlapping by 0.30 m —
 * is a contact; GPUDrive's 0.7-scaled collision pass (the policy's own flag, which stays as it is) misses it.
 */
import { describe, expect, it } from 'vitest';
import { CollisionDetector } from '../../src/traffic/collisions.js';
import { RealContacts } from '../../src/traffic/contacts.js';
import { AgentKind } from '../../src/traffic/world.js';
import { makeWorld } from '../helpers/world-builder.js';

const rad = (d: number) => (d * Math.PI) / 180;

describe('contact at the real size', () => {
  it('opposite headings, 0.30 m of overlap: a contact for both; not for the 0.7-scaled pass', () => {
    // two 4.5 × 2 m cars nose to nose along x (headings 0 and 180°), fronts overlapping by 0.30 m
    const w = makeWorld([{ x: 0, y: 0, yaw: 0 }, { x: 4.5 - 0.3, y: 0, yaw: Math.PI }]);
    const c = new RealContacts(2);
    c.detect(w);
    expect([...c.contact]).toEqual([1, 1]);
    new CollisionDetector(2).detect(w, null, 0);
    expect([...w.hitVehicle]).toEqual([0, 0]);
    // the FMTC headings: 57° and −101°, corners in each other by about 0.3 m
    const f = makeWorld([{ x: 0, y: 0, yaw: rad(57) }, { x: 1.2, y: 3.7, yaw: rad(-101) }]);
    c.detect(f);
    expect([...c.contact]).toEqual([1, 1]);
    // apart by 5 cm: none
    const apart = makeWorld([{ x: 0, y: 0, yaw: 0 }, { x: 4.55, y: 0, yaw: Math.PI }]);
    c.detect(apart);
    expect([...c.contact]).toEqual([0, 0]);
  });

  it('NPC with ego or actor counts; two egos are not ours to judge', () => {
    const c = new RealContacts(3);
    const w = makeWorld([{ x: 0, y: 0, kind: AgentKind.External }, { x: 4.2, y: 0, kind: AgentKind.External }, { x: 4.2, y: 1.5, kind: AgentKind.Controlled }], 3);
    c.detect(w);
    expect([...c.contact]).toEqual([1, 1, 1]);
    const egos = makeWorld([{ x: 0, y: 0, kind: AgentKind.External }, { x: 4.2, y: 0, kind: AgentKind.External }], 2);
    c.detect(egos);
    expect([...c.contact.subarray(0, 2)]).toEqual([0, 0]);
  });
});
