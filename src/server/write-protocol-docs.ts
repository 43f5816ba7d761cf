/** Writes docs/protocol/<message>.schema.json from the schemas the server validates with (npm run build:docs). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../util/project-root.js';
import { PROTOCOL_SCHEMAS } from './schemas.js';

export function protocolSchemaFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(PROTOCOL_SCHEMAS)) {
    out[`${name}.schema.json`] = `${JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema }, null, 2)}\n`;
  }
  return out;
}

if (process.argv[1]?.endsWith('write-protocol-docs.js')) {
  const dir = join(projectRoot(), 'docs', 'protocol');
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(protocolSchemaFiles())) writeFileSync(join(dir, file), text);
  console.log(`wrote ${Object.keys(protocolSchemaFiles()).length} schema files to ${dir}`);
}
