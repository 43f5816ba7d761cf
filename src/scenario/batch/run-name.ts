/**
 * A campaign run's id, named by what it sweeps (issue 46): `0004_gap_m=40_accel_mps2=6`, not the base file's stem
 * (`0004_ccrb_6mps2_12m` named the 40 m runs after a 12 m file). Each swept key by its last dotted part (more
 * parts where two keys of the run would read the same), each value as given (a drawn number to 4 significant
 * digits); a run with no swept value keeps its file's stem. The id names the run's files: only letters, digits and
 * `._=+-` are kept, at most 120 characters.
 */

/** The shortest dotted suffix of each key that tells it from the others'. */
export function shortKeys(keys: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const k of keys) {
    const parts = k.split('.');
    let n = 1;
    const suffix = (key: string, m: number) => key.split('.').slice(-m).join('.');
    while (n < parts.length && keys.some((o) => o !== k && suffix(o, n) === suffix(k, n))) n++;
    out.set(k, suffix(k, n));
  }
  return out;
}

function valueText(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
  if (typeof v === 'string' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export function runName(position: number, stem: string, swept: Readonly<Record<string, unknown>>): string {
  const keys = Object.keys(swept);
  const short = shortKeys(keys);
  const what = keys.length ? keys.map((k) => `${short.get(k)}=${valueText(swept[k])}`).join('_') : stem;
  const safe = what.replace(/[^A-Za-z0-9._=+-]+/g, '-').slice(0, 120);
  return `${String(position).padStart(4, '0')}_${safe}`;
}
