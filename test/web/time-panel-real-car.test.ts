/**
 * The time panel's real car (issue 27 item 6): a wall-clock asset is never held (a car cannot be paused), so
 * dmax does not bound its skew and a skew there is no violation. The panel labels it "real car (wall clock,
 * never held)" and shows its skew as it is, never in red — beside a simulated asset that lags, which is red.
 */
import { describe, expect, it } from 'vitest';
import { REAL_CAR_LABEL, timePanelHtml, timeSummary } from '../../src/web/time-panel.js';
import type { TimeAsset, TimeStatus } from '../../src/web/types.js';

const asset = (a: Partial<TimeAsset> & Pick<TimeAsset, 'name'>): TimeAsset => ({
  kind: 'simulated', external: false, step_ms: 1, t_s: 10, skew_ms: 0, skew_max_ms: 0, held: 0, held_core: 0, lagging: false, ...a,
});

const status: TimeStatus = {
  mode: 'realtime', tc_s: 11.335, dmax_ms: 100, core_step_ms: 1, asset_port: null, violations: 0, departed: [], lagging: ['slow-sim'],
  assets: [
    // the figure seen on the page: 1,335 ms of skew against dmax 100 ms, and 0 violations
    asset({ name: 'wall-clock', kind: 'wallclock', t_s: 10, skew_ms: 1335, skew_max_ms: 1335 }),
    asset({ name: 'world', step_ms: 100, t_s: 11.3, skew_ms: 35 }),
    asset({ name: 'slow-sim', external: true, t_s: 11, skew_ms: 335, lagging: true }),
  ],
};

/** The rows of the panel: class and cells. */
function rows(html: string): Array<{ cls: string; cells: string[] }> {
  return [...html.matchAll(/<tr(?: class="([^"]*)")?[^>]*><td>(.*?)<\/tr>/g)].map((m) => ({
    cls: m[1] ?? '',
    cells: `<td>${m[2]}`.split('</td>').filter((c) => c.startsWith('<td>')).map((c) => c.slice(4)),
  }));
}

describe('time panel: the real car is a wall-clock asset, never held', () => {
  it('labels it, shows its skew as it is, and never marks it as lagging — even if the server said so', () => {
    expect(REAL_CAR_LABEL).toBe('real car (wall clock, never held)');
    const html = timePanelHtml({ ...status, assets: [{ ...status.assets[0], lagging: true }, ...status.assets.slice(1)] });
    const r = new Map(rows(html).map((x) => [x.cells[0], x]));
    expect(r.get('wall-clock')!.cells[1]).toBe(REAL_CAR_LABEL);
    expect(r.get('wall-clock')!.cells[4]).toBe('1335.0'); // its skew, as it is
    expect(r.get('wall-clock')!.cls).toBe('wallclock');
    expect(html).toMatch(/<tr class="wallclock" title="the real car: a wall-clock asset, never held \(a car cannot be paused\); dmax bounds the simulated assets, not its skew/);
    // a lagging simulated asset is still red
    expect(r.get('slow-sim')!.cls).toBe('lagging');
    expect(r.get('world')!.cls).toBe('');
    // the head: 0 violations, and what dmax bounds
    expect(html).toMatch(/0 violations <span class="muted" [^>]*>\(dmax: simulated assets\)<\/span>/);
    expect(html).not.toMatch(/class="bad"/);
  });

  it('the status bar counts the lagging simulated assets only', () => {
    expect(timeSummary(status)).toEqual({ text: 'realtime · Tc 11.34 s · 3 assets · 1 lagging', bad: true });
    expect(timeSummary({ ...status, lagging: [], assets: status.assets.slice(0, 2) })).toEqual({ text: 'realtime · Tc 11.34 s · 2 assets', bad: false });
  });
});
