/**
 * The signals of a scene under /api/signals, as a fastify plugin (registered inside the REST plugin, so its
 * commands are recorded with the others):
 *
 *   GET    /api/signals                   every signal group's state, and every junction: control, approaches
 *                                         (letter, sign, heads, signs), group ids, the plan, the live input
 *   GET    /api/signals/:junction         one junction (404 when the map has none of that id)
 *   PUT    /api/signals/:junction         {states?, phase?, timeout_s?}: its groups set live (the reply: what will be
 *                                         shown, until when, whether clearances run first)
 *   DELETE /api/signals/:junction         its live input ended: back to the plan
 *   PUT    /api/signals/:junction/plan    a SignalPlanOverride {offset_s?, phases? | green_s?, yellow_s?, all_red_s?}
 *
 * Writes are scene calls made between policy steps (SceneInputs via the host's SignalDesk), refused whole with
 * the reason (400); a junction that does not exist, or has no signals, is a 404 naming it and the signalised ones.
 * Reads need a viewer token, writes an operator token (access.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { LiveSignalInput } from '../../scene/signals/index.js';
import type { SignalPlanOverride } from '../../scene/traffic-control.js';
import type { SceneHost } from '../host.js';
import { UnknownJunctionError } from '../signals.js';
import { errorReplySchema, junctionViewSchema, signalLiveBodySchema, signalLiveReplySchema, signalPlanBodySchema, signalPlanSchema, signalsReplySchema } from '../schemas.js';

const errors = { 400: errorReplySchema, 404: errorReplySchema };
const junctionParams = { type: 'object', properties: { junction: { type: 'string', minLength: 1, maxLength: 64 } } } as const;
const tags = ['signals'];

type Params = { junction: string };

export async function signalsPlugin(app: FastifyInstance, opts: { host: SceneHost }): Promise<void> {
  const { host } = opts;
  const desk = host.signals;

  // an unknown junction is a 404 (as an unknown NPC or ego id); every other refusal a 400 (the app's error handler)
  const notFound = (reply: FastifyReply, err: unknown) => {
    if (err instanceof UnknownJunctionError) return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: err.message });
    throw err;
  };

  app.get('/api/signals', {
    schema: { tags, description: "Every signal group's state now, and every junction of the map with its control, approaches, groups, plan and live input.", response: { 200: signalsReplySchema } },
  }, async () => desk.view());

  app.get<{ Params: Params }>('/api/signals/:junction', {
    schema: { tags, params: junctionParams, response: { 200: junctionViewSchema, ...errors } },
  }, async (req, reply) => {
    const cj = desk.junction(req.params.junction);
    if (!cj) {
      try {
        desk.signalisedJunction(req.params.junction);
      } catch (err) {
        return notFound(reply, err);
      }
    }
    return desk.junctionView(cj!);
  });

  app.put<{ Params: Params; Body: Omit<LiveSignalInput, 'junction'> }>('/api/signals/:junction', {
    schema: {
      tags,
      description: "Sets the junction's signal groups live (states by group id, or a phase of its plan) until timeout_s (default 10 s) after this request; a new request renews it. Changes go through the clearances. Refused whole (400) with the reason: conflicting greens, unknown groups, a phase that does not exist.",
      params: junctionParams, body: signalLiveBodySchema, response: { 200: signalLiveReplySchema, ...errors },
    },
  }, async (req, reply) => {
    try {
      return await desk.setLive({ ...req.body, junction: req.params.junction }, 'rest');
    } catch (err) {
      return notFound(reply, err);
    }
  });

  app.delete<{ Params: Params }>('/api/signals/:junction', {
    schema: {
      tags, description: 'Ends the junction\'s live input now: back to its plan through the clearances (released: false when none was active).',
      params: junctionParams, response: { 200: { type: 'object', properties: { junction: { type: 'string' }, released: { type: 'boolean' } } }, ...errors },
    },
  }, async (req, reply) => {
    try {
      return await desk.release(req.params.junction);
    } catch (err) {
      return notFound(reply, err);
    }
  });

  app.put<{ Params: Params; Body: Omit<SignalPlanOverride, 'junction'> }>('/api/signals/:junction/plan', {
    schema: {
      tags,
      description: "Changes the junction's fixed-time plan (an override of the current one: phases or green_s, offset_s, yellow_s, all_red_s). Validated whole: refused (400) with every reason; the new plan starts through the clearances.",
      params: junctionParams, body: signalPlanBodySchema, response: { 200: { type: 'object', properties: { junction: { type: 'string' }, plan: signalPlanSchema } }, ...errors },
    },
  }, async (req, reply) => {
    try {
      return { junction: req.params.junction, plan: await desk.setPlan({ ...req.body, junction: req.params.junction }) };
    } catch (err) {
      return notFound(reply, err);
    }
  });
}
