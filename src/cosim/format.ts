/**
 * printf("%.Nf")-compatible fixed-point text for the text templates, so a VDSim consumer that compares our
 * JSON / NMEA output with vdsim_realtime's sees the same characters. Number.prototype.toFixed differs from C in
 * three places, handled here: exact binary ties round half to even in glibc (toFixed rounds them up: 0.125 →
 * "0.12" in C, "0.13" in JS), negative zero keeps its sign ("-0.00"), and |x| ≥ 1e21 is printed in full instead
 * of in exponent notation.
 */
export function printfFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  if (a >= 1e21) return (neg ? '-' : '') + BigInt(a).toString() + (digits > 0 ? '.' + '0'.repeat(digits) : '');
  let s = a.toFixed(digits);
  const scaled = a * 10 ** digits;
  if (scaled - Math.floor(scaled) === 0.5) {
    // maybe an exact tie: the exact decimal expansion is <digits> then 5 then zeros only
    const exact = a.toFixed(Math.min(100, digits + 25));
    const tail = exact.slice(exact.length - 25);
    if (/^50*$/.test(tail)) {
      const down = Math.floor(scaled);
      if (down % 2 === 0) s = (down / 10 ** digits).toFixed(digits);
    }
  }
  return (neg ? '-' : '') + s;
}

/** A JSON number token with `digits` decimals, or `null` when not finite (VDSim comms_templates json_number). */
export function jsonFixed(x: number, digits: number): string {
  return Number.isFinite(x) ? printfFixed(x, digits) : 'null';
}

/** Left-pads with zeros to `width` characters (printf "%0<width>..."). */
export function zeroPad(s: string, width: number): string {
  return s.length >= width ? s : '0'.repeat(width - s.length) + s;
}
