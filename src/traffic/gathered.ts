/**
 * What the shield gathered for each NPC ahead of its choice (ShieldRollout.gatherAhead): the vehicles that
 * matter to it with their boxes and right of way, and the road edges within reach, kept per slot so that the
 * gathering, which needs no policy result, is done while the policy infers (src/traffic/policy-step.ts) and
 * each NPC's choice starts from it. Held for one step (`begin` invalidates the last); nothing allocated per step
 * but the edge pool's growth to the largest step seen.
 */
export class GatheredStore {
  /** per slot: 1 while its gathering is kept for this step */
  readonly kept: Uint8Array;
  readonly othersN: Int32Array;
  /** per slot i, from i·capacity: the vehicles that matter, and (×5) their boxes, and whether each yields to i */
  readonly others: Int32Array;
  readonly otherBox: Float32Array;
  readonly yields: Uint8Array;
  /** per slot: some vehicle of its others moves; the box scale against edges */
  readonly othersMove: Uint8Array;
  readonly edgeScale: Float64Array;
  /** per slot: its edges near (edgesNearN of them from edgeAt) and those reachable (edgesN, right after them) */
  readonly edgesN: Int32Array;
  readonly edgesNearN: Int32Array;
  readonly edgeAt: Int32Array;
  edges = new Int32Array(0);
  private used = 0;

  constructor(readonly capacity: number) {
    this.kept = new Uint8Array(capacity);
    this.othersN = new Int32Array(capacity);
    this.others = new Int32Array(capacity * capacity);
    this.otherBox = new Float32Array(capacity * capacity * 5);
    this.yields = new Uint8Array(capacity * capacity);
    this.othersMove = new Uint8Array(capacity);
    this.edgeScale = new Float64Array(capacity);
    this.edgesN = new Int32Array(capacity);
    this.edgesNearN = new Int32Array(capacity);
    this.edgeAt = new Int32Array(capacity);
    this.edges = new Int32Array(capacity * 64);
  }

  /** A new step: nothing kept. */
  begin(): void {
    this.kept.fill(0);
    this.used = 0;
  }

  /** Room for `n` more edge ids; returns where they start. */
  claimEdges(n: number): number {
    const at = this.used;
    if (at + n > this.edges.length) {
      const grown = new Int32Array(Math.max(2 * this.edges.length, at + n));
      grown.set(this.edges.subarray(0, at));
      this.edges = grown;
    }
    this.used = at + n;
    return at;
  }
}
