/**
 * CRC-32 as IEEE 802.3 / zlib compute it (reflected, polynomial 0xEDB88320, init and final xor 0xFFFFFFFF):
 * the integrity check of every VDS1 datagram. Table-driven over a byte range of a buffer, so a codec can
 * checksum the bytes it has just written without slicing (no allocation). CRC32("123456789") = 0xCBF43926.
 */
const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/**
 * CRC-32 of bytes [start, end) of `buf` as a signed 32-bit integer (the same bits as the unsigned value): a
 * small integer to V8 on every platform, so the hot path compares it with DataView.getInt32 without boxing.
 */
export function crc32Int(buf: Uint8Array, start = 0, end = buf.length): number {
  let c = -1;
  for (let i = start; i < end; i++) c = TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return c ^ -1;
}

/** CRC-32 of bytes [start, end) of `buf`, as an unsigned 32-bit integer. */
export function crc32(buf: Uint8Array, start = 0, end = buf.length): number {
  return crc32Int(buf, start, end) >>> 0;
}
