/**
 * The WebSocket stream of a scene, /ws/vils/stream (seed protocol §3.4.1), as a fastify plugin: clients send
 * ego_state (and ping), every client receives npc_states at publish_hz. Bad messages get {"type":"error"}
 * replies; the connection and the loop stay up. Messages over 64 KiB are closed with 1009 by ws itself.
 */
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { InputError } from '../../scene/index.js';
import type { ClientChannel } from '../clients.js';
import type { SceneHost } from '../host.js';
import { egoStateSchema, pingSchema } from '../schemas.js';
import { egoReportFromGnss, type GnssEgo } from '../wire.js';

export const WS_PATH = '/ws/vils/stream';
export const MAX_MESSAGE_BYTES = 64 * 1024;

const ajv = new Ajv({ allErrors: false, strict: false });
const validateEgo = ajv.compile(egoStateSchema);
const validatePing = ajv.compile(pingSchema);

function describeErrors(errors: typeof validateEgo.errors): string {
  const e = errors?.[0];
  if (!e) return 'invalid message';
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'message';
  if (e.keyword === 'additionalProperties') return `${where}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  if (e.keyword === 'required') return `${where}: missing field "${(e.params as { missingProperty: string }).missingProperty}"`;
  return `${where} ${e.message}`;
}

interface Arrival {
  text: string;
  /** epoch seconds */
  wall: number;
  /** simulation time */
  sim: number;
}

export async function streamPlugin(app: FastifyInstance, opts: { host: SceneHost }): Promise<void> {
  const { host } = opts;
  const { clients, counters, inputs } = host;
  app.get(WS_PATH, { websocket: true }, (socket: WebSocket) => {
    const channel = clients.add(socket);
    const reply = (c: ClientChannel, obj: unknown) => c.send(JSON.stringify(obj));
    let arrival: Arrival = { text: '', wall: 0, sim: 0 };
    // every message as received, with its arrival time and what became of it (for the recording)
    const note = (a: Arrival, outcome: string) => {
      if (a.text) inputs.received({ kind: 'stream', text: a.text, client: channel.id, arrivalWall: a.wall, simTime: a.sim, outcome });
    };
    const fail = (error: string, a: Arrival = arrival) => {
      counters.errors++;
      note(a, error);
      reply(channel, { type: 'error', error });
    };
    socket.on('message', (data, isBinary) => {
      counters.messages++;
      arrival = { text: '', wall: Date.now() / 1000, sim: host.runner.simNow() };
      if (isBinary) return fail('binary messages are not supported: send JSON text');
      let msg: unknown;
      try {
        arrival.text = data.toString();
        msg = JSON.parse(arrival.text);
      } catch (err) {
        return fail(`malformed JSON: ${(err as Error).message}`);
      }
      if (typeof msg !== 'object' || msg === null || Array.isArray(msg) || typeof (msg as { type?: unknown }).type !== 'string') {
        return fail('a message must be a JSON object with a string "type"');
      }
      const type = (msg as { type: string }).type;
      if (type === 'ego_state') {
        if (!validateEgo(msg)) return fail(`ego_state: ${describeErrors(validateEgo.errors)}`);
        const m = msg as { timestamp?: number; ego_id?: string; data: GnssEgo };
        const a = arrival;
        const failed = (err: unknown) => {
          if (err instanceof InputError) return fail(`ego_state: ${err.message}`, a);
          // never let one message take the process down: report it, keep the connection
          app.log.error({ err }, 'ego_state handling failed');
          return fail(`ego_state: internal error (${(err as Error).message})`, a);
        };
        try {
          // stamped with the simulation time it arrived at; applied between policy steps (inputs.ts)
          inputs.updateEgo(egoReportFromGnss(host.geo, m.ego_id ?? 'ego', m.data, m.timestamp), a.sim).then(() => note(a, 'ok'), failed);
        } catch (err) {
          return failed(err);
        }
        return;
      }
      if (type === 'ping') {
        if (!validatePing(msg)) return fail(`ping: ${describeErrors(validatePing.errors)}`);
        return reply(channel, { type: 'pong', timestamp: Date.now() / 1000 });
      }
      return fail(`unknown message type "${type.slice(0, 64)}" (expected ego_state or ping)`);
    });
    socket.on('close', () => clients.remove(channel));
    socket.on('error', () => clients.remove(channel));
  });
}
