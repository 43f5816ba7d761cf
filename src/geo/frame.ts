/**
 * src/geo — WGS84 ⇄ UTM zone 52N (proj4) ⇄ local metres about a map origin, and heading ⇄ yaw.
 *
 * The local frame is the UTM grid shifted to the origin: x east, y north (grid north), metres.
 * Heading is degrees clockwise from true north (GNSS convention); yaw is radians counter-clockwise from
 * +x (grid east). Grid north and true north differ by the meridian convergence γ (about −1.38° at FMTC,
 * west of zone 52's central meridian 129°E), so yaw = π/2 − (heading − γ) in radians.
 */
import proj4 from 'proj4';

export const WGS84 = 'EPSG:4326';
export const UTM52N = '+proj=utm +zone=52 +datum=WGS84 +units=m +no_defs +type=crs';

/** FMTC (Siheung) proving ground, the default origin. */
export const FMTC_ORIGIN = { lat: 37.3645, lon: 126.7239 } as const;

export interface LatLon {
  lat: number;
  lon: number;
}

export interface LocalPoint {
  x: number;
  y: number;
}

const toUtm = proj4(WGS84, UTM52N);

export function latLonToUtm(lat: number, lon: number): { easting: number; northing: number } {
  const [easting, northing] = toUtm.forward([lon, lat]);
  return { easting, northing };
}

export function utmToLatLon(easting: number, northing: number): LatLon {
  const [lon, lat] = toUtm.inverse([easting, northing]);
  return { lat, lon };
}

/** Meridian convergence γ (degrees): the clockwise angle from true north to grid north at a point. */
export function convergenceDeg(lat: number, lon: number): number {
  // Direction of true north in grid coordinates, from a short step north along the meridian.
  const d = 1e-5;
  const a = latLonToUtm(lat - d, lon);
  const b = latLonToUtm(lat + d, lon);
  const trueNorthFromGridNorth = Math.atan2(b.easting - a.easting, b.northing - a.northing); // clockwise
  return (-trueNorthFromGridNorth * 180) / Math.PI;
}

/** Wraps degrees to [0, 360). */
export function wrapDeg360(d: number): number {
  const r = d % 360;
  return r < 0 ? r + 360 : r;
}

/** Wraps radians to (−π, π]. */
export function wrapPi(a: number): number {
  let r = a % (2 * Math.PI);
  if (r > Math.PI) r -= 2 * Math.PI;
  else if (r <= -Math.PI) r += 2 * Math.PI;
  return r;
}

export class GeoFrame {
  readonly origin: LatLon;
  readonly originUtm: { easting: number; northing: number };
  /** γ at the origin, degrees (varies by ~0.01° per km; positions use the exact value). */
  readonly originConvergenceDeg: number;

  constructor(origin: LatLon = FMTC_ORIGIN) {
    if (!Number.isFinite(origin.lat) || !Number.isFinite(origin.lon) || Math.abs(origin.lat) > 84 || Math.abs(origin.lon) > 180) {
      throw new RangeError(`origin ${JSON.stringify(origin)} is not a valid latitude/longitude`);
    }
    this.origin = { lat: origin.lat, lon: origin.lon };
    this.originUtm = latLonToUtm(origin.lat, origin.lon);
    this.originConvergenceDeg = convergenceDeg(origin.lat, origin.lon);
  }

  toLocal(lat: number, lon: number): LocalPoint {
    const u = latLonToUtm(lat, lon);
    return { x: u.easting - this.originUtm.easting, y: u.northing - this.originUtm.northing };
  }

  toLatLon(x: number, y: number): LatLon {
    return utmToLatLon(x + this.originUtm.easting, y + this.originUtm.northing);
  }

  /** GNSS heading (deg, true north = 0, clockwise) at (lat, lon) → yaw (rad, grid east = 0, CCW). */
  headingToYaw(headingDeg: number, lat: number, lon: number): number {
    const gridBearing = headingDeg - convergenceDeg(lat, lon);
    return wrapPi(((90 - gridBearing) * Math.PI) / 180);
  }

  /** Yaw (rad) at local (x, y) → GNSS heading (deg in [0, 360)). */
  yawToHeading(yaw: number, x: number, y: number): number {
    const { lat, lon } = this.toLatLon(x, y);
    return headingFromYaw(yaw, convergenceDeg(lat, lon));
  }
}

/** Yaw (rad, grid east = 0, CCW) → GNSS heading (deg in [0, 360)) where the meridian convergence is `convDeg`. */
export function headingFromYaw(yaw: number, convDeg: number): number {
  const gridBearing = 90 - (yaw * 180) / Math.PI;
  return wrapDeg360(gridBearing + convDeg);
}
