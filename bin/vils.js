#!/usr/bin/env node
// Thin launcher: the CLI is compiled from src/cli/vils.ts by `npm run build` (run by `npm ci` via `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cli/vils.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('vils: the project is not built yet. Run `npm ci` (or `npm run build`) in the project folder first.');
  process.exit(1);
}
await import(entry.href);
