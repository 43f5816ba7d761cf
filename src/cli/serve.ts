/**
 * `vils serve` (and `npm start`): the VILS server on the built-in demo track, or on a given map.
 *   vils serve [--port 8000] [--host 0.0.0.0] [--map <file>] [--config <file.json>] [--model <onnx>]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createServer } from '../server/app.js';
import type { SessionConfig } from '../server/config.js';
import { configSchema } from '../server/schemas.js';
import { UsageError, type Command } from './commands.js';

interface ServeFileConfig extends Partial<SessionConfig> {
  origin?: { lat: number; lon: number };
  map?: string;
  model?: string;
  port?: number;
  host?: string;
}

function readConfigFile(path: string): ServeFileConfig {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--config ${path}: ${(err as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new UsageError(`--config ${path}: expected a JSON object`);
  const allowed = new Set([...Object.keys(configSchema.properties), 'origin', 'map', 'model', 'port', 'host']);
  for (const k of Object.keys(data)) if (!allowed.has(k)) throw new UsageError(`--config ${path}: unknown key "${k}"`);
  return data as ServeFileConfig;
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the VILS server (WebSocket /ws/vils/stream, REST /api, docs /docs)',
  usage: 'vils serve [--port 8000] [--host 0.0.0.0] [--map <file>] [--config <file.json>] [--model <onnx>] [--paused]',
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' }, host: { type: 'string' }, map: { type: 'string' }, config: { type: 'string' },
        model: { type: 'string' }, paused: { type: 'boolean' }, 'log-level': { type: 'string' },
      },
    });
    const file = values.config ? readConfigFile(values.config) : {};
    const { origin, map, model, port: filePort, host: fileHost, ...session } = file;
    const port = Number(values.port ?? filePort ?? 8000);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0..65535, got ${values.port}`);
    const t0 = performance.now();
    const server = await createServer({
      mapPath: values.map ?? map, modelPath: values.model ?? model, origin, config: session,
      autostart: !values.paused, logLevel: values['log-level'] ?? 'info',
    });
    const address = await server.app.listen({ port, host: values.host ?? fileHost ?? '0.0.0.0' });
    server.app.log.info(
      `VILS ready in ${((performance.now() - t0) / 1000).toFixed(2)} s on ${address}: map ${server.session.map.label}, ` +
        `${server.session.engine.npcCount} NPCs, ${server.session.state}; WebSocket ${address.replace(/^http/, 'ws')}/ws/vils/stream, docs ${address}/docs`,
    );
    const stop = async () => {
      // close cleanly, but never hang on a client that does not answer the close handshake
      setTimeout(() => process.exit(0), 2000).unref();
      try {
        await server.close();
      } finally {
        process.exit(0);
      }
    };
    process.once('SIGINT', () => void stop());
    process.once('SIGTERM', () => void stop());
    await new Promise(() => {});
    return 0;
  },
};
