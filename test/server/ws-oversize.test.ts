/**
 * A WebSocket message over 64 KiB is always closed with 1009 (issue 44, item 5: a 1 MiB text message was once
 * closed 1006). The race: ws answers the oversized frame itself (a close frame with 1009, then it keeps reading
 * and dropping the rest of the message and ends the socket once the frame is out), but the error handlers then
 * terminated the socket — destroyed with the client's megabyte still arriving, so the kernel answered it with a TCP
 * reset, which can overtake the close frame (and a close frame still queued behind a frame was lost outright).
 * Pinned below the client library, on a raw socket: the client that keeps sending its whole message after the
 * close frame must never be reset, and must read a close frame with 1009; then the same through `ws` as a client
 * would, on the stream, on /foxglove and on the Foxglove port of its own.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { afterWsError } from '../../src/server/ws-errors.js';
import type { VilsServer } from '../../src/server/app.js';
import { FOXGLOVE_SUBPROTOCOL } from '../../src/server/plugins/foxglove.js';
import { startServer } from '../helpers/server-fixture.js';

const MIB = 1024 * 1024;

/** The server's frames after the upgrade: each one's opcode and, for a close, its code. */
function serverFrames(buf: Buffer): Array<{ opcode: number; code?: number }> {
  const out: Array<{ opcode: number; code?: number }> = [];
  let at = 0;
  while (at + 2 <= buf.length) {
    const opcode = buf[at] & 0x0f;
    let len = buf[at + 1] & 0x7f;
    let head = 2;
    if (len === 126) {
      if (at + 4 > buf.length) break;
      len = buf.readUInt16BE(at + 2);
      head = 4;
    } else if (len === 127) {
      if (at + 10 > buf.length) break;
      len = Number(buf.readBigUInt64BE(at + 2));
      head = 10;
    }
    if (at + head + len > buf.length) break;
    out.push(opcode === 8 && len >= 2 ? { opcode, code: buf.readUInt16BE(at + head) } : { opcode });
    at += head + len;
  }
  return out;
}

const write = (sock: Socket, data: Buffer) => new Promise<void>((resolve, reject) => sock.write(data, (err) => (err ? reject(err) : resolve())));

/**
 * Upgrades a raw TCP connection, announces a masked text frame of `bytes` and sends its first 16 KiB; once the
 * server's close frame is there, sends the rest in 16 KiB writes with pauses — a client that finishes its message
 * before it reads (a browser, a bridge) — then reads what the server sent until it ends the connection. A server
 * that destroyed its socket answers those writes with a reset.
 */
async function sendOversize(port: number, path: string, bytes: number, protocol?: string): Promise<{ closeCode: number | null; reset: string | null; sent: number }> {
  // (half-open allowed: a client still sending its message does not end its side because the server ended its own)
  const sock = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  await once(sock, 'connect');
  let received = Buffer.alloc(0);
  let reset: string | null = null;
  sock.on('data', (d: Buffer) => (received = Buffer.concat([received, d])));
  sock.on('error', (err: Error & { code?: string }) => (reset ??= err.code ?? err.message));
  const ended = new Promise<void>((resolve) => sock.once('close', () => resolve()));
  sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n${protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : ''}\r\n`);
  for (let i = 0; i < 500 && !received.includes('\r\n\r\n'); i++) await new Promise((r) => setTimeout(r, 10));
  const headEnd = received.indexOf('\r\n\r\n');
  expect(received.toString('latin1', 0, 12)).toBe('HTTP/1.1 101');
  const upgraded = headEnd + 4;
  // FIN + text, masked, 64-bit length; the mask key is zero, so the payload goes as is
  const header = Buffer.alloc(14);
  header[0] = 0x81;
  header[1] = 0x80 | 127;
  header.writeBigUInt64BE(BigInt(bytes), 2);
  let sent = 0;
  const closeFrame = () => serverFrames(received.subarray(upgraded)).find((f) => f.opcode === 8);
  try {
    await write(sock, header);
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    for (let n = 0; sent < bytes && reset === null; n++) {
      await write(sock, chunk.subarray(0, Math.min(chunk.length, bytes - sent)));
      sent += Math.min(chunk.length, bytes - sent);
      // the first chunk: wait for the server's answer; then a pause now and then, for a reset to come back
      if (n === 0) for (let i = 0; i < 3000 && !closeFrame() && reset === null; i++) await new Promise((r) => setTimeout(r, 10));
      else if (n % 8 === 0) await new Promise((r) => setTimeout(r, 5));
    }
  } catch (err) {
    reset ??= (err as Error & { code?: string }).code ?? (err as Error).message;
  }
  // the whole message went (or the connection broke): then the client's side is done
  if (reset === null) sock.end();
  await Promise.race([ended, new Promise((r) => setTimeout(r, 30_000))]);
  sock.destroy();
  return { closeCode: closeFrame()?.code ?? null, reset, sent };
}

/** `ws` as a client sends one message of `bytes`; the close code it sees. */
async function wsClientClose(url: string, bytes: number, protocol?: string): Promise<number> {
  const ws = new WebSocket(url, protocol ? [protocol] : undefined, { perMessageDeflate: false });
  ws.on('error', () => undefined);
  await once(ws, 'open');
  const closed = once(ws, 'close') as Promise<[number]>;
  ws.send('a'.repeat(bytes));
  const [code] = await closed;
  return code;
}

describe('what a WebSocket error leaves to ws', () => {
  it('a protocol error (an oversized message, a bad frame) is closed by ws with its code; anything else is terminated', () => {
    expect(afterWsError({ code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' })).toBe('close');
    expect(afterWsError({ code: 'WS_ERR_INVALID_UTF8' })).toBe('close');
    expect(afterWsError({ code: 'ECONNRESET' })).toBe('terminate');
    expect(afterWsError({})).toBe('terminate');
  });
});

describe('a message over 64 KiB is closed with 1009, never reset (issue 44)', () => {
  let server: VilsServer;
  let port: number;

  beforeAll(async () => {
    ({ server } = await startServer({ config: { npc_target: 2 }, autostart: false, foxglove: { port: 0, host: '127.0.0.1' } }));
    port = (server.app.server.address() as { port: number }).port;
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('on the stream, /foxglove and the Foxglove port of its own: a client that sends all of a 1 MiB message reads 1009 and is not reset', async () => {
    for (const [p, path, protocol] of [[port, '/ws/vils/stream'], [port, '/foxglove', FOXGLOVE_SUBPROTOCOL], [server.foxglovePort!, '/', FOXGLOVE_SUBPROTOCOL]] as const) {
      const r = await sendOversize(p, path, MIB, protocol);
      expect(r, `${p} ${path}`).toEqual({ closeCode: 1009, reset: null, sent: MIB });
    }
  }, 120_000);

  it('as a ws client sees it: 1009 every time, for 65 KiB and 1 MiB', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 10; i++) codes.push(await wsClientClose(`ws://127.0.0.1:${port}/ws/vils/stream`, i % 2 ? MIB : 65 * 1024));
    for (let i = 0; i < 4; i++) codes.push(await wsClientClose(`ws://127.0.0.1:${server.foxglovePort!}/`, MIB, FOXGLOVE_SUBPROTOCOL));
    expect(codes).toEqual(codes.map(() => 1009));
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
  }, 120_000);
});
