/**
 * Contact in the live scene: two vehicles touch when their rotated boxes at their real size overlap — the one
 * definition for NPC–NPC, NPC–ego and NPC–actor contact, behind every flag, count and event a user reads. GPUDrive's
 * collision pass (collisions.ts) tests boxes scaled by 0.7, as the policy was trained: that flag stays the policy's
 * (it is part of its observation), and `vils eval` keeps it; it misses two NPCs that overlap by 0.3 m at full size.
 * Egos among themselves are not tested (neither is ours to judge). No allocation per step.
 */
import { obbOverlap } from './obb.js';
import { AgentKind, type World } from './world.js';
import { XOrder } from './x-order.js';

export class RealContacts {
  /** per slot: it touches another vehicle this step */
  readonly contact: Uint8Array;
  private readonly active: Int32Array;
  private readonly rank: Int32Array;
  private readonly near: Int32Array;
  private readonly byX: XOrder;

  constructor(capacity: number) {
    this.contact = new Uint8Array(capacity);
    this.active = new Int32Array(capacity);
    this.rank = new Int32Array(capacity);
    this.near = new Int32Array(capacity);
    this.byX = new XOrder(capacity);
  }

  /** Recomputes `contact` for every vehicle of the world as it is now. */
  detect(world: World): void {
    this.contact.fill(0);
    let n = 0, most = 0;
    this.byX.clear();
    for (let i = 0; i < world.count; i++) {
      const k = world.kind[i];
      if (!world.present[i] || (k !== AgentKind.Controlled && k !== AgentKind.External)) continue;
      const r = 0.5 * Math.hypot(world.length[i], world.width[i]);
      if (!(Number.isFinite(world.x[i]) && Number.isFinite(world.y[i]) && Number.isFinite(r))) continue;
      if (r > most) most = r;
      this.rank[i] = n;
      this.active[n++] = i;
      this.byX.add(i, world.x[i]);
    }
    this.byX.sort();
    const span = 2 * most * (1 + 1e-9) + 1e-6;
    for (let a = 0; a < n; a++) {
      const i = this.active[a];
      const m = this.byX.inRange(world.x[i] - span, world.x[i] + span, this.near);
      for (let q = 0; q < m; q++) {
        const j = this.near[q];
        if (this.rank[j] <= a) continue;
        if (world.kind[i] === AgentKind.External && world.kind[j] === AgentKind.External) continue;
        const hli = 0.5 * world.length[i], hwi = 0.5 * world.width[i], hlj = 0.5 * world.length[j], hwj = 0.5 * world.width[j];
        const dx = world.x[j] - world.x[i], dy = world.y[j] - world.y[i];
        const reach = Math.hypot(hli, hwi) + Math.hypot(hlj, hwj);
        if (dx * dx + dy * dy > reach * reach) continue;
        if (obbOverlap(world.x[i], world.y[i], world.yaw[i], hli, hwi, world.x[j], world.y[j], world.yaw[j], hlj, hwj)) {
          this.contact[i] = 1;
          this.contact[j] = 1;
        }
      }
    }
  }
}
