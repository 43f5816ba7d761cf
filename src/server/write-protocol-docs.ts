/**
 * Writes docs/protocol/<message>.schema.json from the schemas the server validates with, and the settings table
 * of docs/car-in-the-loop.md from the one settings table (npm run build:docs).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../util/project-root.js';
import { PROTOCOL_SCHEMAS } from './schemas.js';
import { SETTINGS_DOC_END, SETTINGS_DOC_START, settingsMarkdown } from './settings.js';

export function protocolSchemaFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(PROTOCOL_SCHEMAS)) {
    out[`${name}.schema.json`] = `${JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema }, null, 2)}\n`;
  }
  return out;
}

/** `page` with the text between the settings-table markers replaced by the current table. */
export function withSettingsTable(page: string): string {
  const a = page.indexOf(SETTINGS_DOC_START);
  const b = page.indexOf(SETTINGS_DOC_END);
  if (a < 0 || b < a) throw new Error('the page has no settings-table markers');
  return `${page.slice(0, a + SETTINGS_DOC_START.length)}\n${settingsMarkdown()}\n${page.slice(b)}`;
}

if (process.argv[1]?.endsWith('write-protocol-docs.js')) {
  const dir = join(projectRoot(), 'docs', 'protocol');
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(protocolSchemaFiles())) writeFileSync(join(dir, file), text);
  console.log(`wrote ${Object.keys(protocolSchemaFiles()).length} schema files to ${dir}`);
  const page = join(projectRoot(), 'docs', 'car-in-the-loop.md');
  writeFileSync(page, withSettingsTable(readFileSync(page, 'utf8')));
  console.log(`wrote the settings table into ${page}`);
}
