/**
 * `nmea_rmc`: an NMEA 0183 (v2.3) $GPRMC sentence — VDSim has no RMC template; written from the NMEA standard
 * with the same conventions as `nmea_gga`: position from the measured GNSS channel about `origin`, speed over
 * ground [knots, %.2f] and course [deg true, %.1f, 0..360) from the measured GNSS ENU velocity, UTC time and
 * date from the wall clock (rounded to 1/100 s, carried into the date), no magnetic variation, mode A. Without a
 * fix: status V, empty position/speed/course fields, mode N. Course is empty below 0.05 m/s (undefined at rest).
 */
import { printfFixed, zeroPad } from '../../format.js';
import { nmeaDegMin, nmeaSentence, nmeaUtcField } from '../../nmea.js';
import { SI } from '../../vds1.js';
import { gnssFix } from './nmea-gga.js';
import { registerTemplate, writeText } from './registry.js';
import type { GeodeticOrigin } from '../../geodetic.js';

const KNOTS_PER_MPS = 3600 / 1852;

export function rmcSentence(east: number, north: number, vEast: number, vNorth: number, o: Readonly<GeodeticOrigin>, utcMs: number): string {
  const g = gnssFix(east, north, 0, o);
  const latF = g.ok ? nmeaDegMin(g.lat, 2) : '';
  const lonF = g.ok ? nmeaDegMin(g.lon, 3) : '';
  const fix = latF !== '' && lonF !== '';
  const centis = Math.floor(utcMs / 10 + 0.5);
  const day = new Date(centis * 10);
  const date = Number.isFinite(utcMs) ? zeroPad(String(day.getUTCDate()), 2) + zeroPad(String(day.getUTCMonth() + 1), 2) + zeroPad(String(day.getUTCFullYear() % 100), 2) : '';
  const speed = Math.hypot(vEast, vNorth);
  const velOk = fix && Number.isFinite(speed) && speed < 1e4;
  let course = '';
  if (velOk && speed >= 0.05) {
    let deg = (Math.atan2(vEast, vNorth) * 180) / Math.PI;
    if (deg < 0) deg += 360;
    course = printfFixed(deg >= 359.95 ? 0 : deg, 1);
  }
  return nmeaSentence([
    'GPRMC',
    nmeaUtcField((centis % 8_640_000) / 100),
    fix ? 'A' : 'V',
    fix ? latF : '',
    fix ? (g.lat >= 0 ? 'N' : 'S') : '',
    fix ? lonF : '',
    fix ? (g.lon >= 0 ? 'E' : 'W') : '',
    velOk ? printfFixed(speed * KNOTS_PER_MPS, 2) : '',
    course,
    date,
    '',
    '',
    fix ? 'A' : 'N',
  ]);
}

registerTemplate({
  name: 'nmea_rmc',
  summary: 'NMEA 0183 $GPRMC: measured GNSS position, speed and course, UTC date (needs `origin`)',
  tx: {
    sources: ['state', 'sensor'],
    sensorTypes: ['gnss', 'gnss_pos', 'gnss_vel'],
    encode(ctx, out) {
      const v = ctx.vehicle.frame.v;
      const s = ctx.vehicle.sensors;
      return writeText(rmcSentence(v[SI.mGnssX], v[SI.mGnssY], s.gnssVx, s.gnssVy, ctx.origin, ctx.utcMs), out);
    },
  },
});
