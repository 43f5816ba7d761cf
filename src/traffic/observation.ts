/**
 * Builds GPUDrive observations (spec §2–§5) for a batch of agents into one reused Float32Array:
 * per agent [ego(6) | 63 partners × 6 | 200 road rows × 13] = 2984 floats, all in the ego frame
 * x' = cos(yaw)·dx + sin(yaw)·dy (forward), y' = −sin(yaw)·dx + cos(yaw)·dy (left). Visible partners and
 * roads are written compactly from row 0 and the rest are padding rows; the builder reports how many are real.
 * `buildRows` writes the same values as the policy's rows (ego and real rows only, src/policy/rows.ts).
 */
import { EGO_FEATURES, OBS_SIZE, PARTNER_FEATURES, PARTNER_OFFSET, PARTNER_ROWS, ROAD_FEATURES, ROAD_OFFSET } from '../policy/layout.js';
import { ROAD_PADDING_TYPE_COLUMN, type ObservationRows, type RowCounts } from '../policy/rows.js';
import { RadiusMemo, type RoadIndex } from '../map/spatial-index.js';
import { POSITION_NORM, relativeHeading, RoadRows } from './road-rows.js';
import { AgentKind, type World } from './world.js';

export const OBS_RADIUS = 50;
export const MAX_SPEED = 100;
export const MAX_VEH_LEN = 30;
export const MAX_VEH_WIDTH = 15;
export { MAX_ROAD_SCALE, POSITION_NORM, relativeHeading } from './road-rows.js';
const TWO_PI = 2 * Math.PI;

export class ObservationBuilder {
  private readonly order: Int32Array;
  private orderCount = 0;
  /** per observer slot: the road entities near where it was (firstInRadius without a tree walk each step) */
  private readonly near: RadiusMemo;
  /**
   * Real partner and road rows of observer k in the latest `build` (written from slot 0; the rest of the
   * 63 and 200 rows are padding). `rows` is the same pair as RowCounts.
   */
  readonly partnerCount: Uint8Array;
  readonly roadCount: Uint8Array;
  readonly rows: RowCounts;
  /** the road rows (an observer standing still gets those it had) */
  readonly roadRows: RoadRows;
  /** real rows of the agent buildOne wrote last */
  private partnersWritten = 0;
  private roadsWritten = 0;

  /** reference: every observer's road rows computed afresh (the engine's `reference` option; see RoadRows) */
  constructor(capacity: number, readonly radius = OBS_RADIUS, reference = false) {
    this.order = new Int32Array(capacity);
    this.near = new RadiusMemo(capacity);
    this.roadRows = new RoadRows(capacity, this.near, reference);
    this.partnerCount = new Uint8Array(capacity);
    this.roadCount = new Uint8Array(capacity);
    this.rows = { partners: this.partnerCount, roads: this.roadCount };
  }

  /** Partner candidate order: injected external agents first (never dropped), then creation order. */
  private prepareOrder(world: World): void {
    let n = 0;
    for (let i = 0; i < world.count; i++) if (world.present[i] && world.kind[i] === AgentKind.External) this.order[n++] = i;
    for (let i = 0; i < world.count; i++) if (world.present[i] && world.kind[i] !== AgentKind.External) this.order[n++] = i;
    this.orderCount = n;
  }

  /**
   * Writes observations of `observers[0..n)` into `out` (agent k at k·2984), padding rows included, and
   * their real row counts into partnerCount/roadCount. `sizeScale` is the policy's factor on length/width
   * (0.7 for the shipped checkpoints). `roads` may be null (no map).
   */
  build(world: World, roads: RoadIndex | null, observers: ArrayLike<number>, n: number, out: Float32Array, sizeScale: number): void {
    this.prepareOrder(world);
    for (let k = 0; k < n; k++) {
      const base = k * OBS_SIZE;
      this.buildOne(world, roads, observers[k], out, base, out, base + PARTNER_OFFSET, out, base + ROAD_OFFSET, sizeScale);
      const p = this.partnersWritten;
      const r = this.roadsWritten;
      this.partnerCount[k] = p;
      this.roadCount[k] = r;
      // padding rows: six zeros for partners (§4.6), type None for roads (§5.9)
      out.fill(0, base + PARTNER_OFFSET + p * PARTNER_FEATURES, base + ROAD_OFFSET);
      let row = base + ROAD_OFFSET + r * ROAD_FEATURES;
      const end = base + OBS_SIZE;
      if (row < end) {
        out.fill(0, row, end);
        for (; row < end; row += ROAD_FEATURES) out[row + ROAD_PADDING_TYPE_COLUMN] = 1;
      }
    }
  }

  /**
   * The same observations as `build`, written as the policy's rows (ego row and real rows only, no padding):
   * what the rows graph runs on, without writing or reading a padding row.
   */
  buildRows(world: World, roads: RoadIndex | null, observers: ArrayLike<number>, n: number, rows: ObservationRows, sizeScale: number): void {
    this.prepareOrder(world);
    rows.clear();
    for (let k = 0; k < n; k++) {
      this.buildOne(world, roads, observers[k], rows.ego, k * EGO_FEATURES, rows.partners, rows.partnerRowsUsed * PARTNER_FEATURES, rows.roads, rows.roadRowsUsed * ROAD_FEATURES, sizeScale);
      this.partnerCount[k] = this.partnersWritten;
      this.roadCount[k] = this.roadsWritten;
      rows.addAgent(this.partnersWritten, this.roadsWritten);
    }
    rows.finish();
  }

  /** The ego row of agent i at ego[e], its real partner rows from p and real road rows from r (no padding). */
  private buildOne(world: World, roads: RoadIndex | null, i: number, ego: Float32Array, e: number, partners: Float32Array, p: number, road: Float32Array, r: number, s: number): void {
    const ex = world.x[i];
    const ey = world.y[i];
    const yaw = world.yaw[i];
    const c = Math.cos(yaw);
    const sn = Math.sin(yaw);
    const r2 = this.radius * this.radius;

    // ego (§3)
    const gdx = world.goalX[i] - ex;
    const gdy = world.goalY[i] - ey;
    ego[e] = world.speed(i) / MAX_SPEED;
    ego[e + 1] = (world.length[i] * s) / MAX_VEH_LEN;
    ego[e + 2] = (world.width[i] * s) / MAX_VEH_WIDTH;
    ego[e + 3] = (c * gdx + sn * gdy) / POSITION_NORM;
    ego[e + 4] = (-sn * gdx + c * gdy) / POSITION_NORM;
    ego[e + 5] = world.collided[i] ? 1 : 0;

    // partners (§4): visible agents written compactly from slot 0
    let count = 0;
    let row = p;
    for (let k = 0; k < this.orderCount && count < PARTNER_ROWS; k++) {
      const j = this.order[k];
      if (j === i) continue;
      const dx = world.x[j] - ex;
      const dy = world.y[j] - ey;
      if (dx * dx + dy * dy > r2) continue;
      partners[row] = world.speed(j) / MAX_SPEED;
      partners[row + 1] = (c * dx + sn * dy) / POSITION_NORM;
      partners[row + 2] = (-sn * dx + c * dy) / POSITION_NORM;
      partners[row + 3] = relativeHeading(world.yaw[j], yaw) / TWO_PI;
      partners[row + 4] = (world.length[j] * s) / MAX_VEH_LEN;
      partners[row + 5] = (world.width[j] * s) / MAX_VEH_WIDTH;
      row += PARTNER_FEATURES;
      count++;
    }
    this.partnersWritten = count;

    // road graph (§5): the first 200 entities within the radius, in creation order
    this.roadsWritten = roads ? this.roadRows.write(roads, i, ex, ey, yaw, c, sn, this.radius, road, r) : 0;
  }
}
