import { describe, expect, it } from 'vitest';
import { FMTC_ORIGIN, GeoFrame, convergenceDeg, latLonToUtm, wrapDeg360 } from '../../src/geo/index.js';
import { utmForward } from '../helpers/kruger-utm.js';

const M_PER_DEG_LAT = 110_990; // at 37.4°N, for turning angle errors into metres
const M_PER_DEG_LON = 88_390;

describe('WGS84 → UTM 52N (proj4) against an independent Krüger-series projection', () => {
  it('agrees within 1 mm over a 5 km area around FMTC and at K-City', () => {
    const pts: Array<[number, number]> = [];
    for (let i = -2; i <= 2; i++) for (let j = -2; j <= 2; j++) pts.push([FMTC_ORIGIN.lat + i * 0.0112, FMTC_ORIGIN.lon + j * 0.014]);
    pts.push([37.2378, 126.7721]); // K-City
    for (const [lat, lon] of pts) {
      const a = latLonToUtm(lat, lon);
      const b = utmForward(lat, lon, 52);
      expect(Math.abs(a.easting - b.easting)).toBeLessThan(1e-3);
      expect(Math.abs(a.northing - b.northing)).toBeLessThan(1e-3);
    }
  });
});

describe('local frame', () => {
  const g = new GeoFrame(FMTC_ORIGIN);
  it('is the UTM grid shifted to the origin', () => {
    expect(g.toLocal(FMTC_ORIGIN.lat, FMTC_ORIGIN.lon)).toEqual({ x: 0, y: 0 });
    const u0 = utmForward(FMTC_ORIGIN.lat, FMTC_ORIGIN.lon, 52);
    const u1 = utmForward(37.37, 126.73, 52);
    const p = g.toLocal(37.37, 126.73);
    expect(p.x).toBeCloseTo(u1.easting - u0.easting, 3);
    expect(p.y).toBeCloseTo(u1.northing - u0.northing, 3);
  });
  it('round-trips lat/lon → local → lat/lon within 1 mm across 5 km', () => {
    for (let i = -5; i <= 5; i++) {
      for (let j = -5; j <= 5; j++) {
        const lat = FMTC_ORIGIN.lat + i * 0.0045;
        const lon = FMTC_ORIGIN.lon + j * 0.0057;
        const p = g.toLocal(lat, lon);
        const back = g.toLatLon(p.x, p.y);
        expect(Math.abs(back.lat - lat) * M_PER_DEG_LAT).toBeLessThan(1e-3);
        expect(Math.abs(back.lon - lon) * M_PER_DEG_LON).toBeLessThan(1e-3);
      }
    }
  });
  it('rejects an invalid origin', () => {
    expect(() => new GeoFrame({ lat: 95, lon: 0 })).toThrow(/not a valid latitude/);
  });
});

describe('heading ⇄ yaw with meridian convergence', () => {
  const g = new GeoFrame(FMTC_ORIGIN);
  it('has γ ≈ −1.38° at FMTC (tan γ = tan(λ − 129°)·sin φ, to 0.002°) and 0 on the central meridian', () => {
    const gamma = convergenceDeg(FMTC_ORIGIN.lat, FMTC_ORIGIN.lon);
    const approx = (Math.atan(Math.tan(((FMTC_ORIGIN.lon - 129) * Math.PI) / 180) * Math.sin((FMTC_ORIGIN.lat * Math.PI) / 180)) * 180) / Math.PI;
    expect(gamma).toBeCloseTo(-1.38, 2);
    expect(Math.abs(gamma - approx)).toBeLessThan(0.002);
    expect(Math.abs(convergenceDeg(37, 129))).toBeLessThan(1e-6);
  });
  it('turns true north into grid yaw 90° + γ, and east into γ', () => {
    const gamma = convergenceDeg(FMTC_ORIGIN.lat, FMTC_ORIGIN.lon);
    expect((g.headingToYaw(0, FMTC_ORIGIN.lat, FMTC_ORIGIN.lon) * 180) / Math.PI).toBeCloseTo(90 + gamma, 6);
    expect((g.headingToYaw(90, FMTC_ORIGIN.lat, FMTC_ORIGIN.lon) * 180) / Math.PI).toBeCloseTo(gamma, 6);
  });
  it('agrees with the direction of a short true-north step measured in the independent projection', () => {
    const lat = 37.366, lon = 126.722;
    const a = utmForward(lat, lon, 52), b = utmForward(lat + 1e-4, lon, 52);
    const yawOfTrueNorth = Math.atan2(b.northing - a.northing, b.easting - a.easting);
    expect(g.headingToYaw(0, lat, lon)).toBeCloseTo(yawOfTrueNorth, 6);
  });
  it('round-trips heading → yaw → heading', () => {
    for (const h of [0, 1, 45, 90, 179.5, 270, 359.9]) {
      const p = g.toLocal(37.365, 126.725);
      const yaw = g.headingToYaw(h, 37.365, 126.725);
      expect(wrapDeg360(g.yawToHeading(yaw, p.x, p.y) - h + 180) - 180).toBeCloseTo(0, 6);
    }
  });
});

describe('vils geo', () => {
  it('reports UTM, local coordinates and convergence', async () => {
    const { geoReport } = await import('../../src/cli/geo.js');
    const { report } = geoReport(['37.366', '126.722', '--origin', '37.3645,126.7239', '--heading', '0']);
    const u = utmForward(37.366, 126.722, 52);
    const r = report as { utm: { easting: number; northing: number }; local: { x: number; y: number }; convergence_deg: number; yaw_rad: number };
    expect(r.utm.easting).toBeCloseTo(u.easting, 3);
    expect(r.utm.northing).toBeCloseTo(u.northing, 3);
    const o = utmForward(37.3645, 126.7239, 52);
    expect(r.local.x).toBeCloseTo(u.easting - o.easting, 3);
    expect(r.convergence_deg).toBeCloseTo(-1.383, 2);
    expect((r.yaw_rad * 180) / Math.PI).toBeCloseTo(90 + r.convergence_deg, 6);
    expect(() => geoReport(['91', '0'])).toThrow(/latitude must be a number in \[-84, 84\]/);
    expect(() => geoReport(['37'])).toThrow(/give a latitude and a longitude/);
  });
});
