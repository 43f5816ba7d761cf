/**
 * What the rules remember of each vehicle from step to step, per world slot: a decision once made on a yellow, a
 * full stop made, the line it was held at, how long it has stood. All of it belongs to the vehicle, not the slot:
 * it is forgotten when the slot changes hands (or the scene is reset). Shared by the rooms that decide.
 */
export class RuleMemory {
  /** the simulation time of the step being decided [s] */
  time = 0;
  /** the vehicle id each slot's memos belong to */
  private readonly memoId: Int32Array;
  /** +mg+1: decided to go on this yellow; −(mg+1): to stop */
  readonly yellowMemo: Int32Array;
  /** the movement at whose line it made its full stop, and when */
  readonly stopDone: Int32Array;
  readonly stopDoneT: Float64Array;
  /** the movement it was held for in the last step (−1) */
  readonly heldMg: Int32Array;
  /** since when it has stood at its line (the full stop at a stop sign; egos at an all-way stop) */
  readonly standSince: Float64Array;
  /** since when it has been standing (below QUEUED_MPS; −1 moving) */
  readonly stillSince: Float64Array;
  /** 1: the crosswalk give-way (src/scene/people/give-way.ts) held it in the last step — a vehicle stopping for a
   * line of its own, as heldMg says for the rules' lines (the box rule counts no room ahead of it) */
  readonly heldForPeople: Uint8Array;

  constructor(cap: number) {
    this.memoId = new Int32Array(cap).fill(0x7fffffff);
    this.yellowMemo = new Int32Array(cap);
    this.stopDone = new Int32Array(cap).fill(-1);
    this.stopDoneT = new Float64Array(cap);
    this.heldMg = new Int32Array(cap).fill(-1);
    this.standSince = new Float64Array(cap).fill(-1);
    this.stillSince = new Float64Array(cap).fill(-1);
    this.heldForPeople = new Uint8Array(cap);
  }

  /** Are slot s's memos another vehicle's than `id`? */
  stale(s: number, id: number): boolean {
    return this.memoId[s] !== id;
  }

  /** Starts slot s's memos afresh for vehicle `id`. */
  forget(s: number, id: number): void {
    this.memoId[s] = id;
    this.yellowMemo[s] = 0;
    this.stopDone[s] = -1;
    this.heldMg[s] = -1;
    this.standSince[s] = -1;
    this.stillSince[s] = -1;
  }

  /** Forgets every memo (a scene reset). */
  reset(): void {
    this.memoId.fill(0x7fffffff);
    this.time = 0;
  }
}
