/**
 * What a WebSocket error means for its connection (issue 44: a 1 MiB message was once closed 1006 instead of 1009).
 *
 * On a protocol error — a message over maxPayload (WS_ERR_UNSUPPORTED_MESSAGE_LENGTH), a bad frame, invalid UTF-8 —
 * ws has already answered it when the error is emitted: it sent a close frame with the code (1009, 1002, 1007),
 * keeps reading and dropping what the client still sends, and ends the socket once the frame is out. Terminating
 * the socket there (what the error handlers did) destroyed it at once: the close frame could still sit in Node's
 * write queue behind a frame, and the client, still sending its megabyte, was answered by a TCP reset that can
 * overtake the close frame — the client saw 1006. Such an error is left to ws; any other (a reset, a broken pipe,
 * a failure of the server's own) leaves nothing to close cleanly, and the socket is terminated.
 */

/** `close`: ws closes the connection itself with the right code; `terminate`: nothing is left to close cleanly. */
export function afterWsError(err: { code?: string }): 'close' | 'terminate' {
  return typeof err.code === 'string' && err.code.startsWith('WS_ERR_') ? 'close' : 'terminate';
}

/** A client's fault (its frames, its connection) is logged at debug; only a failure of the server's own is an error. */
export function isClientWsError(err: { code?: string }): boolean {
  return afterWsError(err) === 'close' || err.code === 'ECONNRESET' || err.code === 'EPIPE';
}

interface Log {
  debug(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** @fastify/websocket's errorHandler: logged by whose fault it is, and the socket closed as afterWsError says. */
export function wsErrorHandler(err: Error & { code?: string }, socket: { terminate(): void }, log: Log): void {
  if (isClientWsError(err)) log.debug({ code: err.code }, `WebSocket client error: ${err.message}`);
  else log.error({ err }, 'WebSocket handler failed');
  if (afterWsError(err) === 'terminate') socket.terminate();
}
