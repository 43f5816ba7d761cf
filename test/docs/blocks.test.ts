/** What the docs' command test reads from a page (test/docs/blocks.ts): instructions, languages, ports. */
import { describe, expect, it } from 'vitest';
import { parseDoc, parseMode, serverPort } from './blocks.js';

describe('doc-test instructions', () => {
  it('reads each mode, and refuses an unknown one or a skip for another reason than ../shared, ROS 2 or Docker', () => {
    expect(parseMode(undefined)).toEqual({ kind: 'run' });
    expect(parseMode('exits 1 (this car fails)')).toEqual({ kind: 'exits', status: 1 });
    expect(parseMode('server')).toEqual({ kind: 'server' });
    expect(parseMode('background "Ready to accept"')).toEqual({ kind: 'background', ready: 'Ready to accept' });
    expect(parseMode('briefly 3')).toEqual({ kind: 'briefly', seconds: 3 });
    expect(parseMode('suite (what CI runs)')).toEqual({ kind: 'suite' });
    expect(parseMode('skip needs ROS 2')).toEqual({ kind: 'skip', reason: 'needs ROS 2' });
    expect(() => parseMode('skip it is slow')).toThrow(/needs \.\.\/shared", "needs ROS 2" or "needs Docker"/);
    expect(() => parseMode('sometimes')).toThrow(/unknown doc-test instruction "sometimes"/);
  });

  it('takes the instruction right before a fence, stop markers in order, and refuses a fence without a language', () => {
    const page = ['# T', '', '<!-- doc-test: server -->', '```sh', 'npm start', '```', '', '```sh', 'curl -fsS localhost:8000/api/status', '```', '<!-- doc-test: stop-server -->', '', '```json', '{"a": 1}', '```'].join('\n');
    const steps = parseDoc('p.md', page);
    expect(steps.map((s) => (s.type === 'block' ? `${s.lang}:${s.mode.kind}:${s.body}` : 'stop'))).toEqual([
      'sh:server:npm start',
      'sh:run:curl -fsS localhost:8000/api/status',
      'stop',
      'json:run:{"a": 1}',
    ]);
    // an instruction is lost once prose comes between it and the fence
    expect(parseDoc('p.md', '<!-- doc-test: server -->\nsome words\n```sh\nnpm start\n```').map((s) => s.type === 'block' && s.mode.kind)).toEqual(['run']);
    expect(() => parseDoc('p.md', 'x\n```\nnpm start\n```')).toThrow(/p\.md:2: a fenced block without a language/);
    expect(() => parseDoc('p.md', '```sh\nnpm start\n')).toThrow(/never closed/);
    expect(() => parseDoc('p.md', '<!-- doc-test: server -->\n```yaml\na: 1\n```')).toThrow(/only sh blocks are run/);
  });

  it('finds the port a server command listens on', () => {
    expect(serverPort('npm start')).toBe(8000);
    expect(serverPort('npx vils serve --port 8123 --map m.json')).toBe(8123);
    expect(serverPort('npx vils replay x.mcap --play --port=9000')).toBe(9000);
  });
});
