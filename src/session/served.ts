/**
 * A session as `vils serve` hosts it (src/server/host.ts's SceneHost is one): the room, the runner that paces it,
 * and what is attached to it. The scenario's simulated egos (sim-egos.ts) and a served test case
 * (story-desk.ts) attach to this, so they need nothing of the server.
 */
import type { LiveScene } from '../scene/index.js';
import type { SceneInputs } from './inputs.js';
import type { SceneRunner } from './runner.js';
import type { SceneTime } from './scene-time.js';

/** Something attached to a served session that reports status and is closed with it (the recorder, the Foxglove channels, the simulated egos). */
export interface SessionAttachment {
  status(): Record<string, unknown>;
  /** a line for the periodic health log when something of it lagged since the last call (server/watch.ts) */
  health?(): string | null;
  close(): Promise<void>;
}

export interface ServedSession {
  readonly name: string;
  readonly scene: LiveScene;
  readonly inputs: SceneInputs;
  /** the session's time conductor */
  readonly time: SceneTime;
  readonly runner: SceneRunner;
  /** shown in the status, closed with the session */
  readonly attachments: Map<string, SessionAttachment>;
}
