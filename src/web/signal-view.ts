/** The signals on the map: the signal layer of a map with traffic control, its toolbar toggle and legend, S to show or hide the states, drawn per frame; and the crosswalks, outlined always, filled in their walk signal's state. */
import { CrosswalkLayer } from './crosswalks.js';
import { $ } from './dom.js';
import { hasTrafficControl } from './map-layer.js';
import { SignalLayer, type SignalLabel } from './signals.js';
import type { MapReply, SignalState } from './types.js';
import type { View } from './view.js';

export class SignalView {
  /** the signals drawn per frame (null: the map has none) */
  layer: SignalLayer | null = null;
  /** the map's crosswalks (null: it has none) */
  crosswalks: CrosswalkLayer | null = null;
  /** signal states on the map (S) */
  shown = true;

  /** `changed`: the drawing must be redone */
  constructor(private readonly changed: () => void) {}

  setMap(m: MapReply): void {
    const sl = m.traffic_control && hasTrafficControl(m) ? new SignalLayer(m.traffic_control) : null;
    this.layer = sl && !sl.empty ? sl : null;
    const cw = new CrosswalkLayer(m.traffic_control?.crosswalks ?? []);
    this.crosswalks = cw.empty ? null : cw;
    $('lg-crosswalks').hidden = this.crosswalks === null;
    $('lbl-signals').hidden = this.layer === null;
    $('lg-signals').hidden = this.layer === null || this.layer.groups.length === 0;
    // the status bar's signals item from the start (its line does not appear under the map later)
    if (this.layer && this.layer.groups.length > 0) $('st-signals-item').hidden = false;
  }

  toggle(show?: boolean): void {
    this.shown = show ?? !this.shown;
    ($('chk-signals') as HTMLInputElement).checked = this.shown;
    this.changed();
  }

  /** The states' colours over the roads and under the vehicles; returns their labels, to be placed with the vehicles'. */
  draw(ctx: CanvasRenderingContext2D, view: View, signals: readonly SignalState[] | undefined): SignalLabel[] {
    this.crosswalks?.draw(ctx, view, signals, this.shown, performance.now());
    return this.shown && this.layer ? this.layer.draw(ctx, view, signals, true) : [];
  }
}
