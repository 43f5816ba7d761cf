/** Short messages in the corner of the map: a confirmation fades after 3 s, an error (a refusal in the server's words) after 7 s. */
import { $ } from './dom.js';

export function toast(message: string, error = false): void {
  const box = $('toasts');
  const el = document.createElement('div');
  el.className = `toast${error ? ' error' : ''}`;
  el.textContent = message;
  box.appendChild(el);
  while (box.children.length > 4) box.firstElementChild?.remove();
  window.setTimeout(() => el.classList.add('fade'), error ? 7000 : 3000);
  window.setTimeout(() => el.remove(), error ? 7500 : 3500);
}
