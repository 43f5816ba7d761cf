/** What the page reads over REST: the map (retried until it comes), the config, and once a second the status and the NPC details. */
import type { MapHandle } from './map-handle.js';
import { $ } from './dom.js';
import { toast } from './toasts.js';
import type { MapReply, NpcDetail, NpcStatesFrame, ServerConfig, ServerStatus } from './types.js';

export class ServerData {
  mapReply: MapReply | null = null;
  status: ServerStatus | null = null;
  config: ServerConfig | null = null;
  private lastDetails = 0;
  private detailsBusy = false;
  private statusBusy = false;

  constructor(private readonly page: MapHandle) {}

  async loadMap(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const m = await this.page.api.call<MapReply>('GET', '/api/map');
        const same = this.mapReply && this.mapReply.name === m.name && this.mapReply.counts.points === m.counts.points;
        this.mapReply = m;
        this.page.showMap(m, !!same);
        return;
      } catch (err) {
        if (attempt === 0 || attempt % 10 === 0) toast(`Cannot load the map: ${(err as Error).message}. Retrying…`, true);
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  }

  async loadConfig(): Promise<void> {
    try {
      this.config = await this.page.api.call<ServerConfig>('GET', '/api/config');
      ($('init-n') as HTMLInputElement).value = String(this.config.npc_target);
    } catch {
      /* shown by the connection state */
    }
  }

  async pollStatus(): Promise<void> {
    if (this.statusBusy) return;
    this.statusBusy = true;
    try {
      this.status = await this.page.api.call<ServerStatus>('GET', '/api/status');
      this.page.story.onStatus(this.status);
    } catch {
      this.status = null;
    } finally {
      this.statusBusy = false;
    }
  }

  /** NPC goals and origins (the frames carry neither): every second, and soon after unknown NPCs appear. */
  async pollDetails(force: boolean): Promise<void> {
    const now = performance.now();
    if (this.detailsBusy || (!force && now - this.lastDetails < 250)) return;
    this.detailsBusy = true;
    this.lastDetails = now;
    const state = this.page.state;
    try {
      const r = await this.page.api.call<{ npcs: NpcDetail[] }>('GET', '/api/npcs');
      state.setDetails(r.npcs);
      this.page.canvas.dirty = true;
      // a paused scene sends a frame once a second: show the result of an action at once (the entries stand in for
      // the frame's: their hold may say none, which frames leave out, but the page reads holds from the details only)
      const f = state.frame;
      if (force && f && f.state !== 'running') state.frame = { ...f, npcs: r.npcs as unknown as NpcStatesFrame['npcs'], metrics: { ...f.metrics, num_active_npcs: r.npcs.length } };
    } catch {
      /* shown by the connection state */
    } finally {
      this.detailsBusy = false;
    }
  }
}
