/**
 * A token bucket over two resources at once, messages and bytes: each refills at its rate up to its burst;
 * a message is let through only when both have room for it, and then takes from both.
 */
export class TokenBucket {
  private messages: number;
  private bytes: number;
  private last = -Infinity;

  constructor(readonly messagesPerS: number, readonly messagesBurst: number, readonly bytesPerS: number, readonly bytesBurst: number) {
    this.messages = messagesBurst;
    this.bytes = bytesBurst;
  }

  /** Whether one message of `size` bytes fits at time `nowS` [s] (refills first; takes nothing). */
  fits(size: number, nowS: number): boolean {
    if (nowS > this.last) {
      const dt = this.last === -Infinity ? 0 : nowS - this.last;
      this.messages = Math.min(this.messagesBurst, this.messages + dt * this.messagesPerS);
      this.bytes = Math.min(this.bytesBurst, this.bytes + dt * this.bytesPerS);
      this.last = nowS;
    }
    return this.messages >= 1 && this.bytes >= size;
  }

  /** Takes what `fits` said fits. */
  consume(size: number): void {
    this.messages -= 1;
    this.bytes -= size;
  }

  /** Takes one message of `size` bytes at time `nowS` [s]; false (and nothing taken) when over the limit. */
  take(size: number, nowS: number): boolean {
    if (!this.fits(size, nowS)) return false;
    this.consume(size);
    return true;
  }
}
