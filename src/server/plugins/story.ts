/**
 * A served test case under /api/story, as a fastify plugin (registered inside the REST plugin, so its commands
 * are recorded with the others):
 *
 *   GET  /api/story         the case, the vehicle under test, the attempt (number, state, live verdicts or the
 *                           result), what happened in it, and the attempts so far
 *   POST /api/story/arm     a new attempt now: the actors are placed around the vehicle under test where it is
 *                           (an attempt under way is ended first); refused (400) with every problem
 *   POST /api/story/reset   the attempt under way ends (aborted) and its actors leave the scene
 *
 * A scene serving no test case answers 404 (serve one with `vils serve --scenario <case.yaml>`). Reads need a
 * viewer token, writes an operator token (access.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SceneHost } from '../host.js';
import { errorReplySchema, storyViewSchema } from '../schemas.js';

const tags = ['test cases'];
const replies = { 200: storyViewSchema, 400: errorReplySchema, 404: errorReplySchema };

export async function storyPlugin(app: FastifyInstance, opts: { host: SceneHost }): Promise<void> {
  const { host } = opts;
  const none = (reply: FastifyReply) => reply.code(404).send({ statusCode: 404, error: 'Not Found', message: 'this scene serves no test case: start one with vils serve --scenario <case.yaml> (a scenario with a story:, see docs/test-cases.md)' });

  app.get('/api/story', {
    schema: { tags, description: 'The test case served: its vehicle under test, the attempt (number, state, live verdicts or its result), what happened in it, and the attempts so far.', response: replies },
  }, async (_req, reply) => (host.story ? host.story.view() : none(reply)));

  app.post('/api/story/arm', {
    schema: { tags, description: 'Arms a new attempt now: the actors are placed around the vehicle under test where it is (an attempt under way ends first, aborted). Refused (400) with every problem: the car not connected, an actor off the map, a lane change with no lane.', response: replies },
  }, async (_req, reply) => (host.story ? host.story.arm() : none(reply)));

  app.post('/api/story/reset', {
    schema: { tags, description: 'Ends the attempt under way (aborted) and takes its actors out of the scene.', response: replies },
  }, async (_req, reply) => (host.story ? host.story.resetAttempt() : none(reply)));
}
