/** A request the scene refuses, with the reason in words a user can act on (HTTP 400, a WebSocket error). */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}
