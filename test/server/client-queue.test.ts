import { describe, expect, it } from 'vitest';
import { ClientChannel } from '../../src/server/clients.js';

describe('client send queue', () => {
  it('keeps at most max_queue frames for a slow client, dropping the oldest and counting them', () => {
    const callbacks: Array<() => void> = [];
    const sent: string[] = [];
    const socket = { OPEN: 1, readyState: 1, send: (f: string, _o: unknown, cb: () => void) => { sent.push(f); callbacks.push(cb); } };
    const ch = new ClientChannel(socket as never, 1, () => 3);
    for (let i = 0; i < 10; i++) ch.send(`f${i}`); // the socket never finishes writing f0
    expect(sent).toEqual(['f0']);
    expect(ch.dropped).toBe(6); // f1..f6 dropped; f7, f8, f9 wait
    callbacks.shift()!();
    callbacks.shift()!();
    expect(sent).toEqual(['f0', 'f7', 'f8']);
  });
});
