/** Locating ../shared (read-only real data). Tests that need it ask have('shared') (helpers/prerequisites.ts). */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHARED = process.env.VILS_SHARED ?? resolve(PROJECT_ROOT, '..', 'shared');
export const HAVE_SHARED = existsSync(join(SHARED, 'README.md'));

export function sharedPath(...parts: string[]): string {
  return join(SHARED, ...parts);
}

export const S75_CHECKPOINT = sharedPath('data', 'gpudrive', 'checkpoints', 'policy_S75_2025-05-21_u4800.pt');
export const S500_CHECKPOINT = sharedPath('data', 'gpudrive', 'checkpoints', 'policy_S500_75_75_1_2025-06-03_u2400.pt');
export const SCENES_DIR = sharedPath('data', 'gpudrive', 'scenes');
