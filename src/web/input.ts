/** The keyboard and mouse: toolbar buttons and checkboxes, the keys, and on the canvas pan, zoom, pinch, click to inspect and the spawn gesture's pointer events. */
import type { MapHandle } from './map-handle.js';
import { $ } from './dom.js';
import { hitTest } from './draw.js';
import { helpOpen, toggleHelp } from './help.js';
import { toggleTimePanel } from './status-bar.js';

export class Input {
  private readonly pointers = new Map<number, { x: number; y: number }>();
  private pan: { id: number; x: number; y: number; moved: boolean; button: number } | null = null;
  private pinch: { d: number; mx: number; my: number } | null = null;

  constructor(private readonly page: MapHandle) {}

  bind(): void {
    const { page } = this;
    const { actions, canvas } = page;
    const click = (id: string, f: () => unknown) => $(id).addEventListener('click', (e) => {
      (e.currentTarget as HTMLElement).blur();
      void f();
    });
    click('btn-run', () => actions.toggleRun());
    click('btn-add', () => page.spawn.toggle());
    click('btn-clear', () => actions.clearAll());
    click('btn-reset', () => actions.reset());
    click('btn-init', () => actions.init());
    click('btn-fit', () => canvas.fit());
    click('btn-follow', () => canvas.toggleFollow());
    click('btn-help', () => toggleHelp());
    click('st-time-sync', () => toggleTimePanel(page.data.status));
    click('time-close', () => toggleTimePanel(page.data.status, false));
    click('insp-close', () => page.select(null));
    click('insp-delete', () => actions.deleteSelected());
    click('insp-follow', () => {
      canvas.follow = null;
      canvas.toggleFollow();
    });
    const goals = $('chk-goals') as HTMLInputElement;
    const trails = $('chk-trails') as HTMLInputElement;
    const signals = $('chk-signals') as HTMLInputElement;
    signals.addEventListener('change', () => page.signals.toggle(signals.checked));
    goals.addEventListener('change', () => {
      canvas.goals = goals.checked;
      canvas.dirty = true;
    });
    trails.addEventListener('change', () => {
      canvas.trails = trails.checked;
      canvas.dirty = true;
    });
    ($('init-n') as HTMLInputElement).addEventListener('keydown', (e) => {
      if (e.key === 'Enter') void actions.init();
    });
    window.addEventListener('keydown', (e) => this.onKey(e));

    const cv = canvas.el;
    cv.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    cv.addEventListener('pointermove', (e) => this.onPointerMove(e));
    cv.addEventListener('pointerup', (e) => this.onPointerUp(e));
    cv.addEventListener('pointercancel', (e) => this.onPointerUp(e));
    cv.addEventListener('contextmenu', (e) => e.preventDefault());
    cv.addEventListener('wheel', (e) => {
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1;
      const p = this.local(e);
      page.view.zoomAt(Math.exp(-e.deltaY * unit * 0.0015), p.x, p.y);
    }, { passive: false });
  }

  private onKey(e: KeyboardEvent): void {
    const { page } = this;
    const { actions, canvas, view } = page;
    canvas.dirty = true;
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) {
      if (e.key === 'Escape') t.blur();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    const handled = (f: () => unknown) => {
      e.preventDefault();
      void f();
    };
    switch (k) {
      case ' ': return handled(() => actions.toggleRun());
      case 'a': case 'A': return handled(() => page.spawn.toggle());
      case 'c': case 'C': return handled(() => actions.clearAll());
      case 'r': case 'R': return handled(() => actions.reset());
      case '0': return handled(() => canvas.fit());
      case 'h': case 'H': case '?': return handled(() => toggleHelp());
      case 'y': case 'Y': return handled(() => toggleTimePanel(page.data.status));
      case 'v': case 'V': return handled(() => page.story.toggle());
      case 'f': case 'F': return handled(() => canvas.toggleFollow());
      case 'g': case 'G': return handled(() => {
        canvas.goals = !canvas.goals;
        ($('chk-goals') as HTMLInputElement).checked = canvas.goals;
      });
      case 't': case 'T': return handled(() => {
        canvas.trails = !canvas.trails;
        ($('chk-trails') as HTMLInputElement).checked = canvas.trails;
      });
      case 's': case 'S': return handled(() => {
        if (page.signals.layer) page.signals.toggle();
      });
      case 'Delete': case 'Backspace': return handled(() => actions.deleteSelected());
      case '+': case '=': return handled(() => view.zoomAt(1.25, view.width / 2, view.height / 2));
      case '-': case '_': return handled(() => view.zoomAt(0.8, view.width / 2, view.height / 2));
      case 'Escape': return handled(() => {
        if (page.spawn.mode !== 'idle') page.spawn.cancel();
        else if (helpOpen()) toggleHelp(false);
        else page.select(null);
      });
      default:
    }
  }

  /** The pointer's point on the canvas (CSS pixels). */
  private local(e: MouseEvent): { x: number; y: number } {
    const r = this.page.canvas.el.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  private onPointerDown(e: PointerEvent): void {
    const { canvas } = this.page;
    canvas.dirty = true;
    const p = this.local(e);
    this.pointers.set(e.pointerId, p);
    try {
      canvas.el.setPointerCapture(e.pointerId);
    } catch {
      /* synthetic pointers cannot always be captured */
    }
    if (this.pointers.size === 2) {
      // pinch: zoom about the midpoint, pan with it
      const [a, b] = [...this.pointers.values()];
      this.pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), mx: (a.x + b.x) / 2, my: (a.y + b.y) / 2 };
      this.pan = null;
      return;
    }
    if (this.page.spawn.press(p, e.button)) return;
    if (e.button === 0 || e.button === 1) this.pan = { id: e.pointerId, x: p.x, y: p.y, moved: false, button: e.button };
  }

  private onPointerMove(e: PointerEvent): void {
    const { canvas, spawn, view } = this.page;
    const p = this.local(e);
    if (spawn.mode !== 'idle') canvas.dirty = true;
    if (this.pointers.has(e.pointerId)) this.pointers.set(e.pointerId, p);
    if (this.pinch && this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      const mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
      canvas.follow = null;
      view.panBy(mx - this.pinch.mx, my - this.pinch.my);
      if (this.pinch.d > 0 && d > 0) view.zoomAt(d / this.pinch.d, mx, my);
      this.pinch = { d, mx, my };
      return;
    }
    if (spawn.move(p)) return;
    const pan = this.pan;
    if (pan && pan.id === e.pointerId) {
      const dx = p.x - pan.x, dy = p.y - pan.y;
      if (!pan.moved && Math.hypot(dx, dy) < 4) return;
      if (!pan.moved) {
        pan.moved = true;
        canvas.follow = null;
        canvas.el.classList.add('panning');
      }
      view.panBy(dx, dy);
      pan.x = p.x;
      pan.y = p.y;
      return;
    }
    if (spawn.mode === 'idle' && e.pointerType === 'mouse') {
      canvas.el.classList.toggle('hover', hitTest(view, this.page.state, p.x, p.y, performance.now()) !== null);
    }
  }

  private onPointerUp(e: PointerEvent): void {
    const { canvas } = this.page;
    canvas.dirty = true;
    const p = this.local(e);
    this.pointers.delete(e.pointerId);
    if (this.pointers.size < 2) this.pinch = null;
    if (this.page.spawn.release()) return;
    const pan = this.pan;
    if (pan && pan.id === e.pointerId) {
      this.pan = null;
      canvas.el.classList.remove('panning');
      if (!pan.moved && pan.button === 0 && e.type === 'pointerup') this.page.select(hitTest(this.page.view, this.page.state, p.x, p.y, performance.now()));
    }
  }
}
