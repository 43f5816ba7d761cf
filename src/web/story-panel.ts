/**
 * The test-case panel: a scene serving a test case (`vils serve --scenario <case.yaml>`) answers GET /api/story,
 * and the panel shows it (story-view.ts) with the Arm and Reset buttons (POST /api/story/arm, /reset; a refusal
 * is shown in the server's words). Arm sends the attempt number the panel shows: when another arm came first
 * (a second click, another operator) the server answers 409 and changes nothing, and the panel shows the
 * attempt as it now is and says so. It polls once a second while shown, and stops on a 404 (no test case).
 *
 * Whether to ask at all comes from GET /api/status, which the page polls anyway: it has `story` exactly when the
 * scene serves a test case. Asking /api/story blindly would cost every other scene a 404 a second, and the
 * browser reports each one as a console error. Following the status also finds a case served after a
 * reconnect, by another server. V (or the ×) closes the panel and stops its polling.
 */
import type { MapHandle } from './map-handle.js';
import { ApiError } from './api.js';
import { $, setHtml, setText } from './dom.js';
import { storyPanelHtml } from './story-view.js';
import { toast } from './toasts.js';
import type { ServerStatus, StoryView } from './types.js';

const POLL_MS = 1000;

export class StoryPanel {
  /** unknown until the first answer; none: the scene serves no test case (404) */
  served: 'unknown' | 'yes' | 'none' = 'unknown';
  view: StoryView | null = null;
  /** the operator closed it (V or ×) */
  closed = false;
  private timer = 0;
  private busy = false;

  constructor(private readonly page: MapHandle) {}

  bind(): void {
    $('story-arm').addEventListener('click', (e) => {
      (e.currentTarget as HTMLElement).blur();
      void this.command('arm');
    });
    $('story-reset').addEventListener('click', (e) => {
      (e.currentTarget as HTMLElement).blur();
      void this.command('reset');
    });
    $('story-close').addEventListener('click', () => this.toggle(false));
  }

  /** The status came: start asking while the scene serves a test case, stop when it serves none. */
  onStatus(st: ServerStatus | null): void {
    if (!st) return; // the server is away: the connection says so
    if (st.story && typeof st.story === 'object') {
      if (this.served === 'none') this.served = 'unknown';
      if (!this.closed && this.timer === 0) this.start();
    } else if (this.served !== 'none') this.none();
  }

  private none(): void {
    this.served = 'none';
    this.view = null;
    this.stop();
    this.render();
  }

  /** Polls GET /api/story once a second, from now. */
  private start(): void {
    window.clearInterval(this.timer);
    this.timer = window.setInterval(() => void this.poll(), POLL_MS);
    void this.poll();
  }

  private stop(): void {
    window.clearInterval(this.timer);
    this.timer = 0;
  }

  private async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      this.show(await this.page.api.call<StoryView>('GET', '/api/story'));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) this.none();
      // anything else (the server away, a refused token) is shown by the connection state: ask again next time
    } finally {
      this.busy = false;
    }
  }

  /** V and the panel's ×: open or close it; closed, it stops polling (it asks again when opened). */
  toggle(open?: boolean): void {
    if (this.served === 'none') {
      toast('This scene serves no test case (start one with vils serve --scenario <case.yaml>).', true);
      return;
    }
    this.closed = !(open ?? this.closed);
    if (this.closed) this.stop();
    else this.start();
    this.render();
  }

  private show(v: StoryView): void {
    this.served = 'yes';
    this.view = v;
    this.render();
  }

  private render(): void {
    const panel = $('story-panel');
    const v = this.view;
    $('lg-actor').hidden = this.served !== 'yes';
    panel.hidden = this.closed || this.served !== 'yes' || !v;
    if (!v) return;
    setText($('story-case'), v.case);
    setHtml($('story-body'), storyPanelHtml(v));
    ($('story-reset') as HTMLButtonElement).disabled = v.state !== 'armed' && v.state !== 'running';
  }

  /**
   * Arm (the attempt after the one shown, now) or Reset (the attempt under way ends, aborted; its actors leave).
   * Arm names the attempt it replaces, so a double click arms once: the second is refused (409) and the panel
   * catches up with the server.
   */
  private async command(what: 'arm' | 'reset'): Promise<void> {
    const word = what === 'arm' ? 'Arm' : 'Reset';
    const shown = this.view?.attempt ?? 0;
    try {
      const v = await this.page.api.call<StoryView>('POST', `/api/story/${what}`, what === 'arm' ? { attempt: shown } : undefined);
      this.show(v);
      const gated = v.result?.reason.startsWith('waiting at the start gate');
      toast(what === 'arm' ? `Attempt ${v.attempt} armed: ${gated ? 'the actors are placed when the car passes the start gate' : 'the actors are placed'}.` : `Attempt ${v.attempt} reset: ${v.result?.status === 'aborted' ? 'aborted, ' : ''}its actors removed.`);
      this.page.canvas.dirty = true;
      void this.page.data.pollDetails(true);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        await this.poll();
        toast(`Arm refused: attempt ${this.view?.attempt ?? '?'} was armed meanwhile (the panel showed attempt ${shown}); it is shown now: press Arm again to replace it.`, true);
        return;
      }
      toast(`${word} refused: ${err instanceof ApiError ? err.message : String(err)}`, true);
    }
  }

  /** The case an actor belongs to, for the inspector. */
  caseName(): string | null {
    return this.view?.case ?? null;
  }

  /** for the browser tests: window.__vils.story() */
  debug() {
    const v = this.view;
    return { served: this.served, polling: this.timer !== 0, shown: !$('story-panel').hidden, attempt: v?.attempt ?? null, state: v?.state ?? null, status: v?.result?.status ?? null };
  }
}
