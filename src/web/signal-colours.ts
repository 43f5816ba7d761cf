/**
 * The colours of signal states on the web map (stop lines, heads, labels, the status bar), apart from the drawing
 * so that tests in Node can read them without the DOM. style.css repeats them for the status bar and legend.
 */
import type { SignalColour } from './types.js';

export const SIGNAL_COLOURS: Record<SignalColour, string> = {
  green: '#22d65f',
  green_yield: '#9df2b7',
  yellow: '#ffc21a',
  red: '#ff3030',
  off: '#7d868e',
};
/** a head without a group (pedestrian, unbound) or a group the frames do not mention */
export const SIGNAL_UNKNOWN = '#6c757d';
