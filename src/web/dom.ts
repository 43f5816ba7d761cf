/** The page's DOM text helpers: an element by id, text or HTML written only when it changed, the number formats the panels share. */

export const $ = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page lacks #${id}`);
  return el as T;
};

/** what each element was last given (text or HTML) */
const written = new Map<HTMLElement, string>();

export function setText(el: HTMLElement, s: string): void {
  if (written.get(el) === s) return;
  written.set(el, s);
  el.textContent = s;
}

export function setHtml(el: HTMLElement, html: string): void {
  if (written.get(el) === html) return;
  written.set(el, html);
  el.innerHTML = html;
}

export const fmt = (v: number | undefined | null, digits = 1) => (v === undefined || v === null || !Number.isFinite(v) ? '–' : v.toFixed(digits));

/** A map-frame yaw [rad] as a compass heading [deg], given the map's grid convergence. */
export const compassDeg = (yaw: number, convergenceDeg: number) => {
  const d = 90 - (yaw * 180) / Math.PI + convergenceDeg;
  return ((d % 360) + 360) % 360;
};
