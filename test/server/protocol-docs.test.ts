import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protocolSchemaFiles } from '../../src/server/write-protocol-docs.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

describe('published protocol schemas', () => {
  it('docs/protocol/*.schema.json are the schemas the server validates with (run npm run build:docs after a change)', () => {
    for (const [file, text] of Object.entries(protocolSchemaFiles())) {
      expect(readFileSync(join(PROJECT_ROOT, 'docs', 'protocol', file), 'utf8'), file).toBe(text);
    }
  });
});
