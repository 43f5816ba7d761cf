/** The help overlay of keys and mouse (H or ?, closed by Esc). */
import { $ } from './dom.js';

export function toggleHelp(force?: boolean): void {
  const h = $('help');
  h.hidden = force === undefined ? !h.hidden : !force;
}

export const helpOpen = (): boolean => !$('help').hidden;
