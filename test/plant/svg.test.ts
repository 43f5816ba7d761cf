import { describe, expect, it } from 'vitest';
import { renderChartDocument } from '../../src/plant/index.js';
import { escapeXml, niceTicks } from '../../src/plant/plot/svg-chart.js';

describe('hand-written SVG charts', () => {
  it('1-2-5 ticks covering the range', () => {
    expect(niceTicks(0, 10)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(-0.3, 0.7, 5)).toEqual([-0.2, 0, 0.2, 0.4, 0.6]);
    expect(niceTicks(3, 3)).toEqual([3]);
  });
  it('escapes text', () => {
    expect(escapeXml('a < b & "c" > d')).toBe('a &lt; b &amp; &quot;c&quot; &gt; d');
  });
  it('one panel per chart, a polyline per series (decimated to ≤ 1500 points), reference lines dashed', () => {
    const x = Array.from({ length: 5000 }, (_, i) => i / 100);
    const svg = renderChartDocument({
      title: 'T <1>',
      panels: [
        { title: 'A', xLabel: 't [s]', yLabel: 'y', series: [{ label: 's1', color: '#f00', x, y: x.map(Math.sin) }], references: [{ y: 0.5, label: 'half', color: '#0f0' }] },
        { title: 'B', xLabel: 'x', yLabel: 'y', equalAspect: true, series: [{ label: 'p', color: '#00f', x: [0, 1], y: [0, 2] }] },
      ],
    });
    expect(svg).toContain('>T &lt;1&gt;</text>');
    expect((svg.match(/<polyline /g) ?? []).length).toBe(2);
    const pts = /points="([^"]+)"/.exec(svg)![1].split(' ');
    expect(pts.length).toBeLessThanOrEqual(1501);
    expect(svg).toContain('stroke-dasharray="6 4"');
    expect(svg).toMatch(/height="\d+"/);
  });
});
