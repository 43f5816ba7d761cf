/**
 * Local ENU offsets → WGS84 geodetic coordinates, exactly (spec §5.2, VDSim comms_templates.hpp
 * enu_to_geodetic): datum → ECEF, ENU rotated into ECEF, then ECEF → geodetic with Bowring's start value and
 * two Newton steps. The result is forward-transformed back to ECEF and rejected unless it reproduces the input
 * point within 1 mm + 1e-11·|r|; points at or inside the ellipsoid's evolute (where the inverse has up to four
 * answers) and non-finite inputs have no fix.
 */
export interface GeodeticOrigin {
  lat: number;
  lon: number;
  alt: number;
}

export interface Geodetic {
  ok: boolean;
  /** [deg], in [−90, 90] */
  lat: number;
  /** [deg], in (−180, 180] */
  lon: number;
  /** ellipsoidal height [m] */
  alt: number;
}

const A = 6378137.0;
const F = 1 / 298.257223563;
const B = A * (1 - F);
const E2 = F * (2 - F);
const EP2 = (A * A - B * B) / (B * B);
const RAD = Math.PI / 180;
const DEG = 180 / Math.PI;
const EVOLUTE_P = (A * A - B * B) / A;
const EVOLUTE_Z = (A * A - B * B) / B;

function insideEvolute(p: number, z: number): boolean {
  const u = Math.cbrt(Math.abs(p) / EVOLUTE_P);
  const v = Math.cbrt(Math.abs(z) / EVOLUTE_Z);
  return u * u + v * v <= 1;
}

/** Writes the geodetic position of (east, north, up) about `o` into `out` (ok = false and NaN when no fix). */
export function enuToGeodetic(east: number, north: number, up: number, o: Readonly<GeodeticOrigin>, out: Geodetic): Geodetic {
  out.ok = false;
  out.lat = out.lon = out.alt = Number.NaN;
  const lat0 = o.lat * RAD;
  const lon0 = o.lon * RAD;
  const sp = Math.sin(lat0);
  const cp = Math.cos(lat0);
  const sl = Math.sin(lon0);
  const cl = Math.cos(lon0);
  const n0 = A / Math.sqrt(1 - E2 * sp * sp);
  const x0 = (n0 + o.alt) * cp * cl;
  const y0 = (n0 + o.alt) * cp * sl;
  const z0 = (n0 * (1 - E2) + o.alt) * sp;
  const x = x0 - sl * east - sp * cl * north + cp * cl * up;
  const y = y0 + cl * east - sp * sl * north + cp * sl * up;
  const z = z0 + cp * north + sp * up;
  const p = Math.hypot(x, y);
  if (!Number.isFinite(p) || !Number.isFinite(z)) return out;
  if (insideEvolute(p, z)) return out;
  if (!(p > 1e-9)) {
    out.lat = z >= 0 ? 90 : -90;
    out.lon = o.lon - Math.floor((o.lon + 180) / 360) * 360;
    out.alt = Math.abs(z) - B;
    out.ok = true;
    return out;
  }
  const th = Math.atan2(z * A, p * B);
  const st = Math.sin(th);
  const ct = Math.cos(th);
  let lat = Math.atan2(z + EP2 * B * st * st * st, p - E2 * A * ct * ct * ct);
  for (let i = 0; i < 2; i++) {
    const s1 = Math.sin(lat);
    const c1 = Math.cos(lat);
    const w = Math.sqrt(1 - E2 * s1 * s1);
    const nr = A / w;
    const h = p * c1 + z * s1 - A * w;
    const den = nr + h;
    if (!(den > E2 * nr)) break;
    lat = Math.atan2(z, p * (1 - (E2 * nr) / den));
  }
  const s1 = Math.sin(lat);
  const c1 = Math.cos(lat);
  const w1 = Math.sqrt(1 - E2 * s1 * s1);
  const nr = A / w1;
  const h = p * c1 + z * s1 - A * w1;
  const pr = (nr + h) * c1;
  const zr = (nr * (1 - E2) + h) * s1;
  const tol = 1e-3 + 1e-11 * Math.hypot(p, z);
  if (!(Math.abs(pr - p) <= tol) || !(Math.abs(zr - z) <= tol)) return out;
  out.lat = lat * DEG;
  out.lon = Math.atan2(y, x) * DEG;
  out.alt = h;
  out.ok = true;
  return out;
}
