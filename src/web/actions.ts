/** Every action of the page as a REST call (start, pause, clear, reset, init, delete, forget, spawn); a refusal is shown in the server's own words. */
import type { MapHandle, SpawnDraft } from './map-handle.js';
import { ApiError } from './api.js';
import { $ } from './dom.js';
import { toast } from './toasts.js';
import type { RunState, ServerConfig, ServerStatus } from './types.js';

export class Actions {
  private toggling = false;

  constructor(private readonly page: MapHandle) {}

  /** Runs a REST action; a refusal is shown with the server's text. */
  private async act<T>(what: string, f: () => Promise<T>): Promise<T | undefined> {
    try {
      return await f();
    } catch (err) {
      const msg = err instanceof ApiError ? err.message : String(err);
      toast(`${what} refused: ${msg}`, true);
      return undefined;
    }
  }

  async toggleRun(): Promise<void> {
    // a second press before the server has answered the first would send the same command again
    if (this.toggling) return;
    this.toggling = true;
    const { api, state } = this.page;
    try {
      const running = this.page.runState() === 'running';
      const r = await this.act(running ? 'Pause' : 'Start', () => api.call<{ state: RunState }>('POST', running ? '/api/pause' : '/api/start'));
      if (r && state.frame) state.frame = { ...state.frame, state: r.state };
    } finally {
      this.toggling = false;
    }
  }

  async clearAll(): Promise<void> {
    const { api } = this.page;
    // the scene keeps npc_target NPCs by itself: stop that first, or the map refills on the next step
    const cfg = await this.act('Clear', () => api.call<ServerConfig>('PUT', '/api/config', { npc_target: 0 }));
    if (!cfg) return;
    const r = await this.act('Clear', () => api.call<{ removed: number }>('DELETE', '/api/npcs'));
    if (r) toast(`Removed ${r.removed} NPC${r.removed === 1 ? '' : 's'}; auto-spawn is off (Init NPCs brings them back).`);
    this.page.select(null);
    void this.page.data.pollDetails(true);
  }

  async reset(): Promise<void> {
    const r = await this.act('Reset', () => this.page.api.call<ServerStatus>('POST', '/api/reset'));
    if (r) toast('Reset: the same scenario from time 0.');
    this.page.state.trails.clear();
    void this.page.data.pollDetails(true);
  }

  async init(): Promise<void> {
    const input = $('init-n') as HTMLInputElement;
    const n = Number(input.value);
    if (!Number.isInteger(n) || input.value.trim() === '') {
      toast(`Init refused: "${input.value}" is not a whole number of NPCs`, true);
      return;
    }
    const r = await this.act('Init', () => this.page.api.call<ServerStatus>('POST', '/api/init', { npc_count: n }));
    if (r) toast(`New scenario with ${r.npcs ?? n} NPCs.`);
    this.page.select(null);
    void this.page.data.pollDetails(true);
  }

  /** Deletes the selected NPC, or forgets the selected ego. */
  async deleteSelected(): Promise<void> {
    const { api, selected: sel } = this.page;
    if (!sel) return;
    if (sel.kind === 'npc') {
      // the story places and removes its actors: deleting one would leave the attempt without it
      const actor = this.page.state.npc(sel.id)?.actor;
      if (actor !== undefined) {
        toast(`Actor ${actor} belongs to the test case: Reset the attempt (test-case panel) to take it away.`, true);
        return;
      }
      const r = await this.act(`Deleting NPC ${sel.id}`, () => api.call<{ removed: number }>('DELETE', `/api/npcs/${sel.id}`));
      if (r) toast(`NPC ${sel.id} deleted.`);
      void this.page.data.pollDetails(true);
    } else {
      const r = await this.act(`Forgetting ego ${sel.id}`, () => api.call<{ removed: string }>('DELETE', `/api/egos/${encodeURIComponent(sel.id)}`));
      if (r) toast(`Ego ${sel.id} forgotten.`);
    }
    this.page.select(null);
  }

  /** POST /api/npcs for a finished spawn gesture (`goal` null: the server chooses one); the new NPC is selected. */
  async spawn(d: SpawnDraft, goal: { x: number; y: number } | null): Promise<void> {
    const r3 = (v: number) => Math.round(v * 1000) / 1000;
    const body: Record<string, unknown> = { x: r3(d.x), y: r3(d.y), speed: d.speed };
    if (d.yaw !== undefined) body.yaw = r3(d.yaw);
    if (goal) body.goal = { x: r3(goal.x), y: r3(goal.y) };
    const r = await this.act('Spawn', () => this.page.api.call<{ id: number }>('POST', '/api/npcs', body));
    if (!r) return;
    toast(`NPC ${r.id} spawned at ${d.speed.toFixed(1)} m/s${goal ? '' : ', goal chosen by the server'}.`);
    await this.page.data.pollDetails(true);
    this.page.selected = { kind: 'npc', id: r.id };
  }
}
