/** Polls `pred` every `pollMs` until it holds; the 30 s limit only guards against a hang (never a speed test). */
export async function until<T>(what: string, pred: () => T | undefined | false | Promise<T | undefined | false>, seen: () => unknown = () => '', pollMs = 20): Promise<T> {
  const end = Date.now() + 30_000;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(seen())}`);
    await new Promise<void>((r) => setTimeout(r, pollMs));
  }
}
