/**
 * An independent transverse-Mercator forward projection (Krüger series to n^4, as in Karney 2011),
 * written for the tests so UTM values are not computed by the code under test (which uses proj4).
 * Sub-millimetre within a UTM zone.
 */
const a = 6378137;
const WGS84_F = 1 / 298.257223563;
const k0 = 0.9996;

export function utmForward(latDeg: number, lonDeg: number, zone: number): { easting: number; northing: number } {
  return tmForward(latDeg, lonDeg, { lon0: zone * 6 - 183, falseEasting: 500000, falseNorthing: 0, lat0: 0, f: WGS84_F });
}

/** Transverse Mercator (k0 0.9996) with a given central meridian, false origin and latitude of origin. */
export function tmForward(latDeg: number, lonDeg: number, p: { lon0: number; falseEasting: number; falseNorthing: number; lat0: number; f: number }): { easting: number; northing: number } {
  const raw = (lat: number, lon: number) => tmRaw(lat, lon, p.lon0, p.f);
  const base = p.lat0 === 0 ? 0 : raw(p.lat0, p.lon0).y;
  const r = raw(latDeg, lonDeg);
  return { easting: p.falseEasting + r.x, northing: p.falseNorthing + r.y - base };
}

function tmRaw(latDeg: number, lonDeg: number, lon0: number, f: number): { x: number; y: number } {
  const n = f / (2 - f);
  const n2 = n * n, n3 = n2 * n, n4 = n3 * n;
  const A = (a / (1 + n)) * (1 + n2 / 4 + n4 / 64);
  const alpha = [
    n / 2 - (2 / 3) * n2 + (5 / 16) * n3 + (41 / 180) * n4,
    (13 / 48) * n2 - (3 / 5) * n3 + (557 / 1440) * n4,
    (61 / 240) * n3 - (103 / 140) * n4,
    (49561 / 161280) * n4,
  ];
  const e = (2 * Math.sqrt(n)) / (1 + n);
  const phi = (latDeg * Math.PI) / 180;
  const lam = ((lonDeg - lon0) * Math.PI) / 180;
  const s = Math.sin(phi);
  const t = Math.sinh(Math.atanh(s) - e * Math.atanh(e * s));
  const xi = Math.atan2(t, Math.cos(lam));
  const eta = Math.atanh(Math.sin(lam) / Math.sqrt(1 + t * t));
  let x = eta;
  let y = xi;
  for (let j = 1; j <= 4; j++) {
    x += alpha[j - 1] * Math.cos(2 * j * xi) * Math.sinh(2 * j * eta);
    y += alpha[j - 1] * Math.sin(2 * j * xi) * Math.cosh(2 * j * eta);
  }
  return { x: k0 * A * x, y: k0 * A * y };
}
