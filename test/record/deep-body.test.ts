/**
 * Every input is either recorded or refused, the same way in the scene and in the file (issue 26, item 5): a REST
 * body of 10,000 nested arrays (`[`×10,000 to PUT /api/config) was answered 400 by the scene's validation but
 * overflowed the stack of the recorder's JSON.stringify, so the command went missing from /vils/inputs/rest. Now
 * a JSON body nested more than MAX_BODY_DEPTH levels is refused at the edge, unread (400 naming the limit), on
 * every REST route, and the refusal is recorded like any other command; a body at the limit goes through as
 * before. Each command's status in the file is the one its client got, and only the accepted ones changed the
 * scene (configure calls in /vils/calls). A stream message nested as deeply is recorded as received and refused.
 * And should a record still not encode (a path around the edge), it is recorded without the part that failed.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJson, readRecording } from '../../src/record/reader.js';
import { bodyDepthRefusal, jsonNesting, MAX_BODY_DEPTH } from '../../src/server/json-depth.js';
import type { VilsServer } from '../../src/server/app.js';
import { TestClient, startServer } from '../helpers/server-fixture.js';
import { FastClock } from './fast-clock.js';

const nested = (n: number, inner = '') => '['.repeat(n) + inner + ']'.repeat(n);
const nestedObj = (n: number) => '{"a":'.repeat(n - 1) + '{}' + '}'.repeat(n - 1);

describe('jsonNesting', () => {
  it('counts arrays and objects, not brackets in strings, and stops past the limit', () => {
    expect(jsonNesting('1')).toBe(0);
    expect(jsonNesting('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonNesting('{"a":"[[[[{{{{\\"[[["}')).toBe(1);
    expect(jsonNesting(nested(10_000))).toBe(10_000);
    expect(jsonNesting(nested(10_000), 32)).toBe(33);
    expect(jsonNesting(nestedObj(40))).toBe(40);
    expect(bodyDepthRefusal(nested(MAX_BODY_DEPTH))).toBeNull();
    expect(bodyDepthRefusal(nested(MAX_BODY_DEPTH + 1))).toMatch(/nested more than 32 levels deep/);
  });
});

describe('a recording server and deeply nested inputs', () => {
  let dir: string;
  let server: VilsServer;
  let url: string;
  let wsUrl: string;
  /** what each REST command's client got */
  const sent: Array<{ method: string; url: string; status: number; message: string }> = [];
  let rest: Array<Record<string, any>> = [];
  let calls: Array<Record<string, any>> = [];
  let stream: Array<Record<string, any>> = [];
  let configAfter: Record<string, unknown>;
  let streamRefusal: Record<string, any>;

  const send = async (method: string, path: string, body: string) => {
    const r = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body });
    const reply = (await r.json()) as { message?: string };
    sent.push({ method, url: path, status: r.status, message: reply.message ?? '' });
    return { status: r.status, reply };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vils-deep-'));
    const clock = new FastClock(0);
    ({ server, url, wsUrl } = await startServer({ config: { npc_target: 2, publish_hz: 10 }, clock, epochNow: () => 1.7e9 + clock.now(), recording: { dir } }));
    await send('PUT', '/api/config', nested(10_000)); // the body
    await send('PUT', '/api/config', JSON.stringify({ npc_target: 3 }));
    await send('PUT', '/api/config', `{"npc_target":${nested(MAX_BODY_DEPTH - 1, '4')}}`); // at the limit: read, refused by the schema
    await send('PUT', '/api/config', `{"npc_target":${nested(MAX_BODY_DEPTH, '5')}}`); // one past it: refused unread
    await send('PUT', '/api/config', nestedObj(5_000));
    await send('POST', '/api/npcs', nested(10_000));
    await send('PUT', '/api/signals/J1', `{"states":${nested(10_000)}}`);
    await send('PUT', '/api/config', JSON.stringify({ npc_target: 4 }));
    // the stream: the message is recorded as received (text), and refused
    const ws = new TestClient(wsUrl);
    await ws.opened();
    ws.send(`{"type":"ego_state","data":${nested(10_000)}}`);
    streamRefusal = await ws.next((m) => m.type === 'error');
    ws.ws.close();
    configAfter = (await (await fetch(`${url}/api/config`)).json()) as Record<string, unknown>;
    // a record that does not encode (no route brings one any more: straight to the recorder)
    let deep: unknown = [];
    for (let i = 0; i < 10_000; i++) deep = [deep];
    server.host.inputs.received({ kind: 'rest', method: 'PUT', url: '/api/bypass', body: deep, status: 400, reply: '{}', arrivalWall: 1.7e9, simTime: 0 });
    await server.close();
    const file = join(dir, readdirSync(dir)[0]);
    for await (const item of readRecording(file, { topics: new Set(['/vils/inputs/rest', '/vils/calls', '/vils/inputs/stream']) })) {
      if (item.type !== 'message') continue;
      const rec = decodeJson<Record<string, any>>(item.message.data);
      if (item.message.topic === '/vils/inputs/rest') rest.push(rec);
      else if (item.message.topic === '/vils/calls') calls.push(rec);
      else stream.push(rec);
    }
  }, 90_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('`[`×10,000 to PUT /api/config: refused at the edge with 400 naming the limit, and recorded as refused', () => {
    expect(sent[0]).toEqual({ method: 'PUT', url: '/api/config', status: 400, message: `body: arrays and objects nested more than ${MAX_BODY_DEPTH} levels deep (at most ${MAX_BODY_DEPTH}); refused unread` });
    expect(rest[0]).toMatchObject({ method: 'PUT', url: '/api/config', status: 400, body: null });
    expect(JSON.parse(rest[0].reply).message).toBe(sent[0].message);
  });

  it('every REST command is in the file, in order, with the status its client got; the limit is exact', () => {
    expect(rest.slice(0, sent.length).map((r) => ({ method: r.method, url: r.url, status: r.status, message: JSON.parse(r.reply).message ?? '' }))).toEqual(sent);
    expect(sent.map((s) => s.status)).toEqual([400, 200, 400, 400, 400, 400, 400, 200]);
    expect(sent[2].message).toMatch(/npc_target must be integer/); // read: the schema refused it
    expect(rest[2].body).toEqual({ npc_target: JSON.parse(nested(MAX_BODY_DEPTH - 1, '4')) });
    for (const i of [3, 4, 5, 6]) expect(sent[i].message, sent[i].url).toMatch(/nested more than 32 levels deep/);
  });

  it('the scene and the file agree: only the accepted changes are scene calls, and the scene holds the last', () => {
    const patches = calls.filter((c) => c.kind === 'configure').map((c) => c.args.patch);
    expect(patches).toEqual([{ npc_target: 3 }, { npc_target: 4 }]);
    expect(configAfter.npc_target).toBe(4);
    expect(calls.every((c) => c.unrecorded === undefined)).toBe(true);
  });

  it('a stream message nested as deeply is recorded as received, and refused', () => {
    expect(streamRefusal.error).toMatch(/^ego_state: /);
    const rec = stream.find((s) => s.message.startsWith('{"type":"ego_state","data":[[['));
    expect(rec).toBeDefined();
    expect(rec!.outcome).not.toBe('ok');
  });

  it('a record that still cannot be encoded is recorded without the part that failed, saying why', () => {
    const rec = rest.find((r) => r.url === '/api/bypass');
    expect(rec).toMatchObject({ method: 'PUT', status: 400, body: null, body_unrecorded: expect.stringMatching(/RangeError: Maximum call stack size exceeded/) });
  });
});
