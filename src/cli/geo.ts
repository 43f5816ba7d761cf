/**
 * `vils geo <lat> <lon> [--origin lat,lon] [--heading deg] [--json]`: a point's UTM 52N coordinates,
 * its local coordinates about an origin (default FMTC), and the meridian convergence there.
 */
import { parseArgs } from 'node:util';
import { FMTC_ORIGIN, GeoFrame, convergenceDeg, latLonToUtm } from '../geo/index.js';
import { UsageError, type Command } from './commands.js';

/** UTM zone 52 (northern hemisphere), the one grid VILS works in */
const ZONE52_WEST = 126;
const ZONE52_EAST = 132;
/** points this far outside the zone are still served by its grid (with a warning); further out: refused */
const ZONE_SLACK_DEG = 3;
/** further than this from the origin: a warning */
const FAR_KM = 20;

/** Refuses a point that zone 52N cannot describe, naming the zone it is in. */
function checkZone(lat: number, lon: number, what: string): void {
  const zone = Math.floor((lon + 180) / 6) + 1;
  if (lat < 0) throw new Error(`${what} ${lat}, ${lon} is in the southern hemisphere (UTM zone ${zone}S): VILS works in UTM zone 52N (Korea) only`);
  if (lon < ZONE52_WEST - ZONE_SLACK_DEG || lon > ZONE52_EAST + ZONE_SLACK_DEG) {
    throw new Error(`${what} ${lat}, ${lon} is in UTM zone ${zone}N, not 52N (${ZONE52_WEST}–${ZONE52_EAST}° E): VILS works in UTM zone 52N (Korea) only, and zone-52 numbers there would be meaningless (check the order: latitude first, then longitude)`);
  }
}

function parseNumber(s: string | undefined, what: string, min: number, max: number): number {
  const v = Number(s);
  if (s === undefined || s.trim() === '' || !Number.isFinite(v) || v < min || v > max) throw new UsageError(`${what} must be a number in [${min}, ${max}], got ${s}`);
  return v;
}

export function geoReport(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { origin: { type: 'string' }, heading: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (positionals.length !== 2) throw new UsageError('give a latitude and a longitude');
  const lat = parseNumber(positionals[0], 'latitude', -84, 84);
  const lon = parseNumber(positionals[1], 'longitude', -180, 180);
  let origin: { lat: number; lon: number } = { ...FMTC_ORIGIN };
  if (values.origin) {
    const [a, b] = values.origin.split(',');
    origin = { lat: parseNumber(a, 'origin latitude', -84, 84), lon: parseNumber(b, 'origin longitude', -180, 180) };
  }
  checkZone(lat, lon, 'the point');
  if (values.origin) checkZone(origin.lat, origin.lon, 'the origin');
  const frame = new GeoFrame(origin);
  const utm = latLonToUtm(lat, lon);
  const local = frame.toLocal(lat, lon);
  const report: Record<string, unknown> = {
    lat, lon,
    utm: { zone: '52N', easting: utm.easting, northing: utm.northing },
    origin: { ...origin, easting: frame.originUtm.easting, northing: frame.originUtm.northing },
    local: { x: local.x, y: local.y },
    convergence_deg: convergenceDeg(lat, lon),
  };
  const warnings: string[] = [];
  if (lon < ZONE52_WEST || lon > ZONE52_EAST) warnings.push(`${lon}° is outside UTM zone 52 (${ZONE52_WEST}–${ZONE52_EAST}° E) but within ${ZONE_SLACK_DEG}° of it: the zone-52 grid still holds there, with more scale distortion (Korean maps do the same)`);
  const distKm = Math.hypot(local.x, local.y) / 1000;
  if (distKm > FAR_KM) warnings.push(`the point is ${distKm.toFixed(0)} km from the origin ${origin.lat}, ${origin.lon}: the map frame is flat metres about the origin, good to a few kilometres — give the track's own origin with --origin`);
  if (warnings.length) report.warnings = warnings;
  if (values.heading !== undefined) {
    const h = parseNumber(values.heading, '--heading', -360, 720);
    report.heading_deg = h;
    report.yaw_rad = frame.headingToYaw(h, lat, lon);
  }
  return { report, json: Boolean(values.json) };
}

export const geoCommand: Command = {
  name: 'geo',
  summary: 'convert a latitude/longitude to UTM 52N and local coordinates, with the meridian convergence',
  usage: 'vils geo <lat> <lon> [--origin lat,lon] [--heading deg] [--json]',
  async run(argv) {
    const { report, json } = geoReport(argv);
    if (json) {
      console.log(JSON.stringify(report));
      return 0;
    }
    const r = report as { utm: { easting: number; northing: number }; origin: { lat: number; lon: number }; local: { x: number; y: number }; convergence_deg: number; yaw_rad?: number; heading_deg?: number };
    console.log(`WGS84        ${report.lat}, ${report.lon}`);
    console.log(`UTM 52N      E ${r.utm.easting.toFixed(3)}  N ${r.utm.northing.toFixed(3)}`);
    console.log(`local        x ${r.local.x.toFixed(3)} m east, y ${r.local.y.toFixed(3)} m north of origin ${r.origin.lat}, ${r.origin.lon}`);
    console.log(`convergence  ${r.convergence_deg.toFixed(4)}° (grid north is this far clockwise of true north)`);
    if (r.yaw_rad !== undefined) console.log(`heading ${r.heading_deg}° → yaw ${r.yaw_rad.toFixed(6)} rad (${((r.yaw_rad * 180) / Math.PI).toFixed(4)}° from grid east)`);
    for (const w of (report.warnings as string[] | undefined) ?? []) console.error(`warning: ${w}`);
    return 0;
  },
};
