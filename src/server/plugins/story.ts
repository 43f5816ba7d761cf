/**
 * A served test case under /api/story, as a fastify plugin (registered inside the REST plugin, so its commands
 * are recorded with the others):
 *
 *   GET  /api/story         the case, the vehicle under test, the attempt (number, state, live verdicts or the
 *                           result), what happened in it, and the attempts so far
 *   POST /api/story/arm     {"attempt": n}, n the attempt number GET /api/story gives: attempt n + 1 now, its
 *                           actors placed around the vehicle under test where it is or at the case's start gate
 *                           (attempt n, if under way, ends first); refused (400) with every problem before
 *                           anything changes; 409 when n is not the current number (a second click: nothing moves)
 *   POST /api/story/reset   the attempt under way ends (aborted) and its actors leave the scene
 *
 * A scene serving no test case answers 404 (serve one with `vils serve --scenario <case.yaml>`). Reads need a
 * viewer token, writes an operator token (access.ts).
 */
import type { FastifyInstance, FastifyReply, FastifySchemaValidationError } from 'fastify';
import type { SceneHost } from '../host.js';
import { errorReplySchema, storyArmSchema, storyViewSchema } from '../schemas.js';
import { pickSchemaError } from '../body-policy.js';

const tags = ['test cases'];
const replies = { 200: storyViewSchema, 400: errorReplySchema, 404: errorReplySchema };

/** A malformed arm body in words, naming the field, and what to send instead. */
function armBodyProblem(errors: readonly FastifySchemaValidationError[], current: number): string {
  const e = pickSchemaError(errors);
  const params = (e?.params ?? {}) as { missingProperty?: string; additionalProperty?: string };
  let what: string;
  if (e?.keyword === 'required') what = `body.${params.missingProperty ?? 'attempt'} is missing`;
  else if (e?.keyword === 'additionalProperties') what = `body.${params.additionalProperty ?? '?'} is not a field of the arm (its one field is attempt)`;
  else if (e && e.instancePath === '/attempt') what = `body.attempt ${e.message ?? 'is not valid'} (an attempt number: a whole number ≥ 0)`;
  else what = 'the body must be a JSON object';
  return `${what}: send {"attempt": ${current}} (the attempt number GET /api/story gives) with content-type application/json`;
}

export async function storyPlugin(app: FastifyInstance, opts: { host: SceneHost }): Promise<void> {
  const { host } = opts;
  const none = (reply: FastifyReply) => reply.code(404).send({ statusCode: 404, error: 'Not Found', message: 'this scene serves no test case: start one with vils serve --scenario <case.yaml> (a scenario with a story:, see docs/test-cases.md)' });

  app.get('/api/story', {
    schema: { tags, description: 'The test case served: its vehicle under test, the attempt (number, state, live verdicts or its result), what happened in it, and the attempts so far.', response: replies },
  }, async (_req, reply) => (host.story ? host.story.view() : none(reply)));

  app.post<{ Body: { attempt: number } }>('/api/story/arm', {
    attachValidation: true,
    schema: {
      tags,
      description: 'Arms attempt n + 1 now, n being the body\'s attempt, the number GET /api/story gives: the actors are placed around the vehicle under test where it is, or when it passes the case\'s start gate (attempt n, if under way, ends first, aborted). Refused (400) with every problem before anything changes: the car not connected, an actor off the map, a lane change with no lane, a malformed body. 409 when n is not the current attempt (a second click on Arm, another operator): nothing changes.',
      body: storyArmSchema,
      response: { ...replies, 409: errorReplySchema },
    },
  }, async (req, reply) => {
    const desk = host.story;
    // the body first, as on every route (the body policy: refused before anything else is asked)
    if (req.validationError) return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: armBodyProblem(req.validationError.validation, desk?.story.attempt ?? 0) });
    if (!desk) return none(reply);
    return desk.arm(req.body.attempt);
  });

  app.post('/api/story/reset', {
    schema: { tags, description: 'Ends the attempt under way (aborted) and takes its actors out of the scene.', response: replies },
  }, async (_req, reply) => (host.story ? host.story.resetAttempt() : none(reply)));
}
