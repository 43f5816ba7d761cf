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

/** The entries that mean every address: IPv4's /0, and IPv6's (the sockets are IPv4, so it is the same). */
const EVERY_ADDRESS = new Set(['::/0', '0::/0']);

/**
 * What to say, loudly, when an allow-list takes every address (0.0.0.0/0, ::/0): it is accepted — a closed test
 * network is a real use — but VDS1 has no authentication, so it is never taken silently (issue 44).
 */
export function allowAllWarning(entries: readonly string[], what = '--allow'): string | null {
  const all = entries.filter((e) => EVERY_ADDRESS.has(e.trim()) || /\/0$/.test(e.trim()));
  if (all.length === 0) return null;
  return `${what} ${all.join(', ')} takes VDS1 commands from EVERY address: VDS1 has no authentication, so any machine that can reach the command ports drives the vehicles; name the control stack's address or subnet instead (e.g. 192.168.1.20 or 10.0.0.0/24)`;
}

export class SourceFilter {
  private readonly blocks: Block[];
  /** the list as given, for status and messages */
  readonly entries: readonly string[];

  /** entries: IPv4 addresses or a.b.c.d/n blocks (or ::/0, every address); a bad entry throws SourceListError naming it */
  constructor(entries: readonly string[] = []) {
    this.entries = [...entries];
    this.blocks = entries.map((e) => {
      if (EVERY_ADDRESS.has(e.trim())) return { base: 0, mask: 0 };
      const [ip, bits = '32'] = e.trim().split('/');
      const base = parseIpv4(ip);
      const n = Number(bits);
      if (base === null || !/^\d{1,2}$/.test(bits) || n > 32) throw new SourceListError(`"${e}" is not an IPv4 address or a.b.c.d/n block`);
      const mask = n === 0 ? 0 : (0xffffffff << (32 - n)) >>> 0;
      return { base: (base & mask) >>> 0, mask };
    });
  }

  /** Whether the list takes every address (a /0 block). */
  get everything(): boolean {
    return this.blocks.some((b) => b.mask === 0);
  }

  /** Loopback, or inside one of the blocks. */
  allows(address: string): boolean {
    if (isLoopbackAddress(address) || this.everything) return true;
    const a = address.startsWith('::ffff:') ? address.slice(7) : address;
    const n = parseIpv4(a);
    if (n === null) return false;
    for (const b of this.blocks) if (((n & b.mask) >>> 0) === b.base) return true;
    return false;
  }
}
