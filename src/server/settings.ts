/**
 * The server's rows of the settings table (src/scene/settings.ts) — how a scene is served — and the whole table
 * GET/PUT /api/config show and take, from which the REST schema and `vils serve --config`'s checks are made.
 */
import { SCENE_SETTINGS, type SettingSpec, type SettingsTable } from '../scene/index.js';
import { MAX_PUBLISH_HZ, MIN_PUBLISH_HZ } from '../session/runner.js';

/** Settings of the server side of a scene (the rest are the scene's own). */
export interface ServingConfig {
  /** frames per second sent to clients (10–50); NPCs always step at the policy's 10 Hz */
  publish_hz: number;
  /** frames queued per slow client before the oldest is dropped */
  max_queue: number;
  /**
   * the clients' clock minus the server's [s] (e.g. 18 for GPS time against UTC): an ego_state timestamp
   * is compared with the server clock plus this, to find stale fixes and clients whose clock is off
   */
  clock_offset_s: number;
  /**
   * after a stall the scene runs the policy steps it missed in one go, up to this much simulation time, so that
   * NPCs and a test case's actors are where the real-time plan puts them (the real car cannot wait); a longer
   * stall gives the time up (slipped, counted) [s]
   */
  max_catch_up_s: number;
}

export const SERVING_SETTINGS: Readonly<Record<keyof ServingConfig, SettingSpec>> = {
  publish_hz: { type: 'number', default: 10, unit: 'Hz', min: MIN_PUBLISH_HZ, max: MAX_PUBLISH_HZ, description: 'frames per second to clients (NPCs always step every 0.1 s of simulation time; multiples of 10 line frames up with the steps)' },
  max_queue: { type: 'integer', default: 4, unit: 'frames', min: 1, max: 100, description: 'frames queued per slow client before the oldest is dropped' },
  clock_offset_s: { type: 'number', default: 0, unit: 's', min: -86400, max: 86400, description: "the clients' clock minus the server's (e.g. 18 for GPS time against UTC), taken as the offset of a client that answers no clock_probe while its fixes' latencies are plausible; an ego_state timestamp is placed on the server clock with it" },
  max_catch_up_s: { type: 'number', default: 1, unit: 's', min: 0, max: 10, description: "after a stall (the process blocked, a heavy load) the scene runs the policy steps it missed in one go, up to this much, so NPCs and a test case's actors are where real time puts them; a longer stall gives the time up (slipped_s in the status; an attempt under way is invalid)" },
};

/** Everything GET/PUT /api/config show and take, and `vils serve --config` sets. */
export const SESSION_SETTINGS: SettingsTable = { ...SCENE_SETTINGS, ...SERVING_SETTINGS };

/** The settings as a Markdown table (docs/car-in-the-loop.md holds it between markers; npm run build:docs writes it). */
export function settingsMarkdown(table: SettingsTable = SESSION_SETTINGS): string {
  const fmt = (v: number | boolean | string | undefined) => (v === undefined ? '' : typeof v === 'number' ? String(Number(v.toFixed(6))) : String(v));
  const rows = Object.entries(table).map(([k, s]) => {
    const range = s.type === 'enum' ? s.values!.join(', ') : s.type === 'boolean' ? 'true, false' : `${fmt(s.min)}–${fmt(s.max)}${s.type === 'integer' ? ', whole' : ''}`;
    const desc = `${s.description}${s.restart ? ' (**at start only**: refused at runtime)' : ''}`.replace(/\|/g, '\\|');
    return `| \`${k}\` | ${fmt(s.default)} | ${s.unit ?? ''} | ${range} | ${desc} |`;
  });
  return ['| setting | default | unit | range | what |', '|---|---|---|---|---|', ...rows].join('\n');
}

export const SETTINGS_DOC_START = '<!-- settings-table:start (npm run build:docs writes it from src/scene/config.ts and src/server/settings.ts) -->';
export const SETTINGS_DOC_END = '<!-- settings-table:end -->';
