/** The stream glue: frames into the scene state, the connection's state in the banner and status bar, and after a reconnect the map, config and details read again. */
import type { MapHandle } from './map-handle.js';
import { withToken } from './api.js';
import { $, setText } from './dom.js';
import { StreamClient, type ConnectionState } from './stream.js';
import { toast } from './toasts.js';
import type { NpcStatesFrame } from './types.js';

export class Connection {
  conn: ConnectionState = { kind: 'connecting', attempt: 0 };
  private readonly stream: StreamClient;

  constructor(private readonly page: MapHandle) {
    const wsUrl = withToken(`${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${page.base}/ws/vils/stream`);
    this.stream = new StreamClient(wsUrl, {
      onFrame: (f, t) => this.onFrame(f, t),
      onState: (s) => this.onState(s),
      onServerError: (m) => toast(`Server: ${m}`, true),
    });
  }

  start(): void {
    this.stream.start();
  }

  private onFrame(f: NpcStatesFrame, t: number): void {
    const page = this.page;
    page.state.onFrame(f, t);
    if (page.state.unknownIds > 0) void page.data.pollDetails(false);
    const sel = page.selected;
    if (sel?.kind === 'npc' && !f.npcs.some((n) => n.id === sel.id)) page.select(null);
  }

  private onState(s: ConnectionState): void {
    const wasLost = this.conn.kind === 'lost';
    this.conn = s;
    if (s.kind === 'open' && wasLost) {
      toast('Connected to the server again.');
      void this.page.data.loadMap();
      void this.page.data.loadConfig();
      void this.page.data.pollDetails(true);
    }
    this.updateBanner();
  }

  updateBanner(): void {
    const b = $('banner');
    const c = this.conn;
    if (c.kind === 'lost') {
      const secs = Math.max(0, Math.ceil((c.retryAt - Date.now()) / 1000));
      const gone = Math.round((Date.now() - c.since) / 1000);
      setText(b, `The server is gone (${c.reason}, ${gone} s ago). Reconnecting by itself: attempt ${c.attempt}, next try ${secs > 0 ? `in ${secs} s` : 'now'}.`);
      b.className = '';
      b.hidden = false;
    } else if (c.kind === 'connecting' && c.attempt === 0 && !this.page.state.frame) {
      setText(b, 'Connecting to the server…');
      b.className = 'info';
      b.hidden = false;
    } else b.hidden = true;
    const el = $('st-conn');
    el.className = `conn ${c.kind}`;
    setText(el, c.kind === 'open' ? 'live' : c.kind === 'lost' ? 'reconnecting' : 'connecting…');
  }
}
