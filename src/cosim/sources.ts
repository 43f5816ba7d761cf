/**
 * Which remote addresses a UDP endpoint answers or sends to: loopback always, others only when an allow-list
 * names them (IPv4 addresses or CIDR blocks). A command port bound beyond loopback would otherwise answer any
 * address with 200 Hz STATE (VDSim's legacy subscriber rule), and a telemetry target could point the server's
 * stream at anyone: both need the operator to say whom.
 */

/** An IPv4 address as a 32-bit number, or null when `s` is not a dotted quad. */
export function parseIpv4(s: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const b = Number(m[i]);
    if (b > 255) return null;
    n = n * 256 + b;
  }
  return n;
}

/** IPv4 (also IPv4-mapped IPv6) in 127.0.0.0/8, or ::1. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (a === '::1' || a === 'localhost') return true;
  const n = parseIpv4(a);
  return n !== null && n >>> 24 === 127;
}

export class SourceListError extends Error {}

interface Block {
  base: number;
  mask: number;
}

export class SourceFilter {
  private readonly blocks: Block[];
  /** the list as given, for status and messages */
  readonly entries: readonly string[];

  /** entries: IPv4 addresses or a.b.c.d/n blocks; a bad entry throws SourceListError naming it */
  constructor(entries: readonly string[] = []) {
    this.entries = [...entries];
    this.blocks = entries.map((e) => {
      const [ip, bits = '32'] = e.trim().split('/');
      const base = parseIpv4(ip);
      const n = Number(bits);
      if (base === null || !/^\d{1,2}$/.test(bits) || n > 32) throw new SourceListError(`"${e}" is not an IPv4 address or a.b.c.d/n block`);
      const mask = n === 0 ? 0 : (0xffffffff << (32 - n)) >>> 0;
      return { base: (base & mask) >>> 0, mask };
    });
  }

  /** Loopback, or inside one of the blocks. */
  allows(address: string): boolean {
    if (isLoopbackAddress(address)) return true;
    const a = address.startsWith('::ffff:') ? address.slice(7) : address;
    const n = parseIpv4(a);
    if (n === null) return false;
    for (const b of this.blocks) if (((n & b.mask) >>> 0) === b.base) return true;
    return false;
  }
}
