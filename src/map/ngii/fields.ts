/**
 * Field lookup tolerant of the spelling variants real NGII releases have (spec §5): names compare
 * case-insensitively, and known aliases (L_LinKID/L_LinkID/L_linkID, isCentral/IsCentral, …) resolve
 * to the same field.
 */
export type Properties = Record<string, unknown>;

const ALIASES: Record<string, string[]> = {
  l_linkid: ['l_linkid'],
  r_linkid: ['r_linkid'],
  iscentral: ['iscentral', 'is_central'],
  postid: ['postid', 'post_id'],
  ref_lane: ['ref_lane', 'reflane'],
  subtype: ['subtype', 'sub_type'],
  fromnodeid: ['fromnodeid', 'from_node_id', 'fnodeid'],
  tonodeid: ['tonodeid', 'to_node_id', 'tnodeid'],
};

export class FieldReader {
  private readonly index = new Map<string, string>();

  constructor(sample: Properties) {
    for (const k of Object.keys(sample)) this.index.set(k.toLowerCase(), k);
  }

  private key(name: string): string | undefined {
    const lower = name.toLowerCase();
    for (const alias of ALIASES[lower] ?? [lower]) {
      const k = this.index.get(alias);
      if (k) return k;
    }
    return undefined;
  }

  has(name: string): boolean {
    return this.key(name) !== undefined;
  }

  /** Trimmed string value ('' when empty or missing). */
  str(p: Properties, name: string): string {
    const k = this.key(name);
    const v = k === undefined ? null : p[k];
    return v === null || v === undefined ? '' : String(v).trim();
  }

  /** Numeric value (fields may be C, N or F); NaN when empty or missing. */
  num(p: Properties, name: string): number {
    const k = this.key(name);
    const v = k === undefined ? null : p[k];
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && v.trim() !== '') return Number(v.trim());
    return NaN;
  }
}
