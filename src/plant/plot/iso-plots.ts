/** SVG figures of the ISO procedures: yaw rate, lateral acceleration and path (plus the procedure's own view). */
import type { Iso3888Result } from '../validation/iso3888.js';
import type { Iso4138Result } from '../validation/iso4138.js';
import type { Iso7401Result } from '../validation/iso7401.js';
import { type ChartPanel, renderChartDocument } from './svg-chart.js';

const DEG = 180 / Math.PI;
const deg = (a: readonly number[]): number[] => a.map((v) => v * DEG);

function pathPanel(x: readonly number[], y: readonly number[], extra: ChartPanel['series'] = []): ChartPanel {
  return { title: 'Path (top view)', xLabel: 'x [m]', yLabel: 'y [m]', equalAspect: true, heightPx: 300, series: [...extra, { label: 'vehicle CG', color: '#1f5fbf', x, y }] };
}

export function plotIso7401(r: Iso7401Result, label: string): string {
  const t = r.trace.t;
  return renderChartDocument({
    title: `ISO 7401 step steer, ${(r.speedMps * 3.6).toFixed(0)} km/h, δ = ${r.steerDeg}° — ${label}`,
    subtitle: `ψ̇ss ${r.yawRateSs.toFixed(4)} rad/s, peak ${r.yawRatePeak.toFixed(4)} rad/s, overshoot ${r.overshoot.toFixed(3)}, a_y,ss ${r.lateralAccelSs.toFixed(2)} m/s², T_max ${r.timeToPeakS.toFixed(3)} s`,
    panels: [
      {
        title: 'Yaw rate',
        xLabel: 't [s]',
        yLabel: 'yaw rate [deg/s]',
        series: [{ label: 'yaw rate', color: '#1f5fbf', x: t, y: deg(r.trace.yawRate) }],
        references: [
          { y: r.yawRateSs * DEG, label: `steady state ${(r.yawRateSs * DEG).toFixed(2)}°/s`, color: '#1f5fbf' },
          { y: r.yawRatePeak * DEG, label: `peak ${(r.yawRatePeak * DEG).toFixed(2)}°/s`, color: '#c0392b' },
        ],
      },
      {
        title: 'Lateral acceleration',
        xLabel: 't [s]',
        yLabel: 'a_y [m/s²]',
        series: [{ label: 'a_y (body)', color: '#2e8b57', x: t, y: r.trace.ay }],
        references: [{ y: r.lateralAccelSs, label: `steady state ${r.lateralAccelSs.toFixed(2)} m/s²`, color: '#2e8b57' }],
      },
      pathPanel(r.trace.x, r.trace.y),
    ],
  });
}

export function plotIso4138(r: Iso4138Result, label: string): string {
  const t = r.trace.t;
  const lo = 0;
  const hi = Math.max(r.linearRangeAyMax, 4);
  return renderChartDocument({
    title: `ISO 4138 steer ramp, ${(r.speedMps * 3.6).toFixed(0)} km/h — ${label}`,
    subtitle: `understeer gradient K = ${(r.gradientRadPerG * 1000).toFixed(2)} mrad/g (${r.tendency}; rising part only ${(r.risingGradientRadPerG * 1000).toFixed(2)} mrad/g), linear to ${r.linearRangeAyMax.toFixed(2)} m/s², a_y max ${r.ayMax.toFixed(2)} m/s²`,
    panels: [
      {
        title: 'Understeer characteristic',
        xLabel: 'a_y [m/s²]',
        yLabel: 'δ − δ_kin [deg]',
        series: [
          { label: 'δ − δ_kin', color: '#c0392b', x: r.trace.ay, y: deg(r.trace.steerExcess) },
          { label: `fit ${(r.gradientRadPerG * 1000).toFixed(2)} mrad/g`, color: '#2e8b57', x: [lo, hi], y: [lo, hi].map((a) => (r.gradientRadPerMps2 * a + r.interceptRad) * DEG), dashed: true },
        ],
      },
      { title: 'Yaw rate', xLabel: 't [s]', yLabel: 'yaw rate [deg/s]', series: [{ label: 'yaw rate', color: '#1f5fbf', x: t, y: deg(r.trace.yawRate) }] },
      { title: 'Lateral acceleration', xLabel: 't [s]', yLabel: 'a_y [m/s²]', series: [{ label: 'a_y (body)', color: '#2e8b57', x: t, y: r.trace.ay }] },
      { title: 'Road-wheel steer ramp', xLabel: 't [s]', yLabel: 'steer [deg]', heightPx: 180, series: [{ label: 'steer', color: '#777', x: t, y: deg(r.trace.steer) }] },
      pathPanel(r.trace.x, r.trace.y),
    ],
  });
}

export function plotIso3888(r: Iso3888Result, label: string): string {
  const t = r.trace.t;
  const wp = r.waypoints;
  return renderChartDocument({
    title: `ISO 3888-2 lane change, ${r.entryKmh.toFixed(0)} km/h — ${label}: ${r.pass ? 'PASS' : 'FAIL'}`,
    subtitle: `excursion ${r.maxLateralExcursionM.toFixed(3)} m (gate 1.0 m), speed loss ${r.speedLossKmh.toFixed(2)} km/h, peak yaw rate ${r.peakYawRateDegS.toFixed(1)}°/s, peak a_y ${r.peakLateralAccelG.toFixed(3)} g`,
    panels: [
      pathPanel(r.trace.x, r.trace.y, [
        { label: 'centre line', color: '#2e8b57', x: wp.x, y: wp.y, dashed: true },
        { label: 'corridor ±1 m', color: '#aaa', x: wp.x, y: wp.y.map((v) => v + 1) },
        { label: '', color: '#aaa', x: wp.x, y: wp.y.map((v) => v - 1) },
      ]),
      { title: 'Yaw rate', xLabel: 't [s]', yLabel: 'yaw rate [deg/s]', series: [{ label: 'yaw rate', color: '#1f5fbf', x: t, y: deg(r.trace.yawRate) }] },
      { title: 'Lateral acceleration', xLabel: 't [s]', yLabel: 'a_y [m/s²]', series: [{ label: 'a_y (body)', color: '#2e8b57', x: t, y: r.trace.ay }] },
      { title: 'Road-wheel steer (pure pursuit)', xLabel: 't [s]', yLabel: 'steer [deg]', heightPx: 180, series: [{ label: 'steer', color: '#777', x: t, y: deg(r.trace.steer) }] },
    ],
  });
}
