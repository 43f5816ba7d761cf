/**
 * Draws a road map as SVG for people: lanes (thin grey, with direction ticks), lines by colour
 * (yellow/white, dashed when broken), road edges (black), crosswalks and speed bumps (filled), stop
 * signs (red), and the origin (a cross). Map coordinates: x east, y north (flipped for SVG).
 */
import type { SceneJson } from './types.js';

const YELLOW = new Set([9, 10, 11, 12, 13]);
const BROKEN = new Set([6, 9, 10, 13]);

export function renderMapSvg(scene: SceneJson, opts: { title?: string; widthPx?: number } = {}): string {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const r of scene.roads) for (const p of r.geometry) {
    minX = Math.min(minX, p.x); maxX = Math.max(maxX, p.x); minY = Math.min(minY, p.y); maxY = Math.max(maxY, p.y);
  }
  if (!Number.isFinite(minX)) { minX = -10; maxX = 10; minY = -10; maxY = 10; }
  const pad = 0.05 * Math.max(maxX - minX, maxY - minY, 10);
  minX -= pad; minY -= pad; maxX += pad; maxY += pad;
  const w = maxX - minX, h = maxY - minY;
  const widthPx = opts.widthPx ?? 1200;
  const heightPx = Math.round((widthPx * h) / w);
  const sx = (x: number) => (x - minX).toFixed(2);
  const sy = (y: number) => (maxY - y).toFixed(2);
  const stroke = Math.max(w, h) / 1500;
  const path = (g: Array<{ x: number; y: number }>) => g.map((p, i) => `${i ? 'L' : 'M'}${sx(p.x)} ${sy(p.y)}`).join('');
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${widthPx}" height="${heightPx}" viewBox="0 0 ${w.toFixed(2)} ${h.toFixed(2)}">`);
  out.push(`<rect width="100%" height="100%" fill="#6b8e4e"/>`);
  const order = ['driveway', 'crosswalk', 'speed_bump', 'lane', 'road_edge', 'road_line', 'stop_sign'];
  const roads = [...scene.roads].sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
  // asphalt under the lanes
  for (const r of roads) if (r.type === 'lane') out.push(`<path d="${path(r.geometry)}" fill="none" stroke="#555" stroke-width="${3.6}" stroke-linejoin="round"/>`);
  for (const r of roads) {
    const g = r.geometry;
    switch (r.type) {
      case 'lane': {
        out.push(`<path d="${path(g)}" fill="none" stroke="#9ab" stroke-width="${stroke}"/>`);
        if (g.length >= 2) {
          const m = Math.floor(g.length / 2);
          const a = g[Math.max(0, m - 1)], b = g[m];
          const ang = Math.atan2(b.y - a.y, b.x - a.x);
          const l = 1.2;
          const tip = { x: b.x, y: b.y };
          const l1 = { x: b.x - l * Math.cos(ang - 0.5), y: b.y - l * Math.sin(ang - 0.5) };
          const l2 = { x: b.x - l * Math.cos(ang + 0.5), y: b.y - l * Math.sin(ang + 0.5) };
          out.push(`<path d="${path([l1, tip, l2])}" fill="none" stroke="#9ab" stroke-width="${stroke * 2}"/>`);
        }
        break;
      }
      case 'road_line': {
        const id = r.map_element_id ?? 5;
        const colour = YELLOW.has(id) ? '#f2c200' : '#ffffff';
        const dash = BROKEN.has(id) ? ` stroke-dasharray="3 3"` : '';
        out.push(`<path d="${path(g)}" fill="none" stroke="${colour}" stroke-width="${Math.max(stroke, 0.15)}"${dash}/>`);
        break;
      }
      case 'road_edge':
        out.push(`<path d="${path(g)}" fill="none" stroke="${r.map_element_id === 16 ? '#c0392b' : '#111'}" stroke-width="${Math.max(stroke * 1.5, 0.3)}"/>`);
        break;
      case 'crosswalk':
        out.push(`<path d="${path(g)}Z" fill="#eee" fill-opacity="0.7" stroke="none"/>`);
        break;
      case 'speed_bump':
        out.push(`<path d="${path(g)}Z" fill="#e67e22" stroke="none"/>`);
        break;
      case 'driveway':
        out.push(`<path d="${path(g)}Z" fill="#777" fill-opacity="0.5" stroke="none"/>`);
        break;
      case 'stop_sign':
        if (g[0]) out.push(`<circle cx="${sx(g[0].x)}" cy="${sy(g[0].y)}" r="${Math.max(0.6, stroke * 4)}" fill="#d00"/>`);
        break;
      default:
        break;
    }
  }
  const o = Math.max(w, h) / 60;
  out.push(`<path d="M${sx(-o)} ${sy(0)}L${sx(o)} ${sy(0)}M${sx(0)} ${sy(-o)}L${sx(0)} ${sy(o)}" stroke="#00f" stroke-width="${stroke * 3}"/>`);
  if (opts.title) out.push(`<text x="${(w / 100).toFixed(2)}" y="${(h / 30).toFixed(2)}" font-size="${(h / 40).toFixed(2)}" fill="#fff" font-family="sans-serif">${opts.title.replace(/[<&>]/g, '')}</text>`);
  out.push('</svg>');
  return out.join('\n');
}
