/**
 * A map that is not there (issue 46 item 3): the message says where it looked (the path made absolute against the
 * working folder) and which maps there are to choose from, there and in the project's maps/ — every entry point
 * that loads a map (vils serve before loading anything, vils drive, vils run) says the same.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMapFile } from '../../src/map/scene-json.js';
import { mapsIn, missingMap } from '../../src/map/map-files.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

describe('a missing map', () => {
  const work = mkdtempSync(join(tmpdir(), 'vils-maps-'));
  mkdirSync(join(work, 'tracks'));
  writeFileSync(join(work, 'tracks', 'oval.json'), '{}');
  writeFileSync(join(work, 'tracks', 'road.schema.json'), '{}');

  it('names where it looked and the maps in that folder and in the project\'s maps/', () => {
    const msg = missingMap('tracks/ovl.json', work, PROJECT_ROOT);
    expect(msg).toBe(`map tracks/ovl.json not found: looked for ${join(work, 'tracks', 'ovl.json')}; the maps in tracks: oval.json; the project's maps in ${join(PROJECT_ROOT, 'maps')}: ${mapsIn(join(PROJECT_ROOT, 'maps')).join(', ')}`);
    expect(mapsIn(join(PROJECT_ROOT, 'maps'))).toContain('demo-track.json');
  });

  it('says when the folder itself is not there, and a map that is there is no problem', () => {
    expect(missingMap('nowhere/x.json', work, PROJECT_ROOT)).toMatch(new RegExp(`^map nowhere/x\\.json not found: looked for ${join(work, 'nowhere', 'x.json')}; there is no folder ${join(work, 'nowhere')}; the project's maps`));
    expect(missingMap('tracks/oval.json', work, PROJECT_ROOT)).toBeNull();
    expect(missingMap('tracks', work, PROJECT_ROOT)).toMatch(/is not a file/);
  });

  it('loading it says the same instead of a bare ENOENT', () => {
    expect(() => loadMapFile(join(work, 'tracks', 'ovl.json'))).toThrow(/map .*ovl\.json not found: looked for .*; the maps in .*: oval\.json/);
  });
});
