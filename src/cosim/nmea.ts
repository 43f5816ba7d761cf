/** NMEA 0183 framing shared by the GGA and RMC templates (spec §5.2). */
import { printfFixed, zeroPad } from './format.js';

/** XOR of every character between '$' and '*'. */
export function nmeaChecksum(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum ^= body.charCodeAt(i) & 0xff;
  return sum;
}

/** "$<fields joined by ,>*HH\r\n" with an uppercase two-digit checksum. */
export function nmeaSentence(fields: readonly string[]): string {
  const body = fields.join(',');
  return `$${body}*${nmeaChecksum(body).toString(16).toUpperCase().padStart(2, '0')}\r\n`;
}

/**
 * An angle as "ddmm.mmmm" (2 degree digits, latitude) or "dddmm.mmmm" (3, longitude), sign dropped; minutes
 * rounded to 4 decimals before the 60-carry. Empty (not available) when not finite or beyond ±90 / ±180.
 */
export function nmeaDegMin(deg: number, degDigits: 2 | 3): string {
  const max = degDigits === 3 ? 180 : 90;
  if (!Number.isFinite(deg) || Math.abs(deg) > max) return '';
  const a = Math.abs(deg);
  let d = Math.trunc(a);
  let m = Math.round((a - d) * 60 * 1e4) / 1e4; // C std::round: halves away from zero (positive here)
  if (m >= 60) {
    m -= 60;
    d += 1;
  }
  return zeroPad(String(d), degDigits) + zeroPad(printfFixed(m, 4), 7);
}

/** Hundredths of a second since midnight, rounded to 1/100 s first (so 59.995 s carries into the minute). */
export function utcCentiseconds(utcSecondsOfDay: number): number {
  const sod = utcSecondsOfDay - Math.floor(utcSecondsOfDay / 86400) * 86400;
  let cs = Math.floor(sod * 100 + 0.5);
  if (cs >= 8_640_000) cs -= 8_640_000;
  return cs;
}

/** "hhmmss.ss" for UTC seconds since midnight (values outside [0, 86400) wrap); empty when not finite. */
export function nmeaUtcField(utcSecondsOfDay: number): string {
  if (!Number.isFinite(utcSecondsOfDay)) return '';
  const total = utcCentiseconds(utcSecondsOfDay);
  const hh = Math.floor(total / 360000);
  const mm = Math.floor(total / 6000) % 60;
  return zeroPad(String(hh), 2) + zeroPad(String(mm), 2) + zeroPad(printfFixed((total % 6000) / 100, 2), 5);
}
