/**
 * Text encoding of an NGII .dbf (spec ngii-hdmap.md §4): the .cpg if there is one; else the DBF language
 * driver byte (29) 0x4E = CP949; else strict UTF-8 if every record decodes, with CP949 as the fallback.
 * CP949 is decoded with the WHATWG "euc-kr" decoder, which is the windows-949 superset.
 */
import { existsSync, readFileSync } from 'node:fs';

export interface EncodingChoice {
  /** a TextDecoder label */
  readonly encoding: 'utf-8' | 'euc-kr' | 'latin1';
  readonly reason: string;
}

const CPG_LABELS: Record<string, EncodingChoice['encoding']> = {
  'utf-8': 'utf-8', utf8: 'utf-8', '65001': 'utf-8',
  cp949: 'euc-kr', '949': 'euc-kr', 'euc-kr': 'euc-kr', euckr: 'euc-kr', 'ks_c_5601-1987': 'euc-kr', uhc: 'euc-kr', 'windows-949': 'euc-kr',
  'iso-8859-1': 'latin1', latin1: 'latin1', '1252': 'latin1', 'windows-1252': 'latin1', 'ansi 1252': 'latin1',
};

export function chooseEncoding(dbfPath: string): EncodingChoice {
  const cpg = dbfPath.replace(/\.dbf$/i, '.cpg');
  if (existsSync(cpg)) {
    const label = readFileSync(cpg, 'latin1').trim().toLowerCase();
    const enc = CPG_LABELS[label];
    if (enc) return { encoding: enc, reason: `.cpg says "${label}"` };
  }
  const bytes = readFileSync(dbfPath);
  if (bytes.length > 29 && bytes[29] === 0x4e) return { encoding: 'euc-kr', reason: 'DBF language byte 0x4E (CP949)' };
  const headerLength = bytes.length >= 10 ? bytes.readUInt16LE(8) : 0;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(headerLength));
    return { encoding: 'utf-8', reason: 'no .cpg and no language byte; the records are valid UTF-8' };
  } catch {
    return { encoding: 'euc-kr', reason: 'no .cpg and no language byte; not valid UTF-8, read as CP949' };
  }
}
