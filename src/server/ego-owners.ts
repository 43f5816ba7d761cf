/**
 * Ego ownership: which client may send each ego id's state. Apart from the access control because it is kept per
 * scene (each scene's egos are its own), while tokens and limits are the server's.
 */
import type { Peer } from './access.js';

/**
 * Which client owns each ego id of a scene: the token that first drove it, else the connection (and, once
 * that connection has closed, any connection from the same address, so a car that reconnects gets its ego
 * back). An id is free again when the scene forgets the ego (timeout, reset, DELETE /api/egos/:id).
 */
export class EgoOwners {
  private readonly owners = new Map<string, { token: string | null; connection: number; address: string }>();

  /**
   * Claims `egoId` for a peer on a connection: `refused` says who owns it, `fresh` that it was free. An ego
   * the scene has (`exists`) that no client owns is the server's own (a simulated ego): never a client's.
   */
  claim(egoId: string, peer: Peer, connection: number, exists = false): { refused: string | null; fresh: boolean } {
    const o = this.owners.get(egoId);
    if (!o && exists) return { refused: `ego "${egoId}" is driven by the server itself (a simulated ego)`, fresh: false };
    if (!o) {
      this.owners.set(egoId, { token: peer.token?.name ?? null, connection, address: peer.address });
      return { refused: null, fresh: true };
    }
    if (o.token !== null) {
      if (peer.token?.name === o.token) {
        o.connection = connection;
        return { refused: null, fresh: false };
      }
      return { refused: `ego "${egoId}" belongs to another client (${o.token})`, fresh: false };
    }
    if (o.connection === connection) return { refused: null, fresh: false };
    if (o.connection === 0 && o.address === peer.address && peer.token === null) {
      o.connection = connection;
      return { refused: null, fresh: false };
    }
    return { refused: `ego "${egoId}" belongs to another connection${o.connection === 0 ? ` (from ${o.address}, closed; free again when the ego is forgotten)` : ''}`, fresh: false };
  }

  /** A connection closed: its egos stay owned by its address (or token) until they are forgotten. */
  disconnected(connection: number): void {
    for (const o of this.owners.values()) if (o.connection === connection) o.connection = 0;
  }

  forget(egoId: string): void {
    this.owners.delete(egoId);
  }

  owner(egoId: string): string | null {
    const o = this.owners.get(egoId);
    return o ? (o.token ?? `connection ${o.connection || 'closed'} from ${o.address}`) : null;
  }
}
