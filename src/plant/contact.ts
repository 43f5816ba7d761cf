/**
 * Contact points of the four wheels (VDSim ContactPoint ×4), stored as typed arrays so a ground query
 * fills them in place: validity, unit normal in the world frame, friction, road height offset.
 */
export class ContactSet {
  readonly valid = new Uint8Array(4);
  /** Unit normals, world ENU, 3 per wheel. */
  readonly normal = new Float64Array(12);
  /** Contact positions, world ENU, 3 per wheel. */
  readonly position = new Float64Array(12);
  readonly muLong = new Float64Array(4);
  readonly muLat = new Float64Array(4);
  /** Road height at the wheel relative to the road under the CG [m] (drives the L3 unsprung masses). */
  readonly roadDz = new Float64Array(4);
  readonly penetration = new Float64Array(4);
  readonly surfaceId = new Int32Array(4);

  /** Flat ground with friction μ under every wheel (the procedures' contact set). */
  static flat(mu = 1): ContactSet {
    const c = new ContactSet();
    for (let i = 0; i < 4; i++) c.setPoint(i, 0, 0, 1, mu, mu);
    return c;
  }

  setPoint(i: number, nx: number, ny: number, nz: number, muLong: number, muLat: number): void {
    this.valid[i] = 1;
    this.normal[3 * i] = nx;
    this.normal[3 * i + 1] = ny;
    this.normal[3 * i + 2] = nz;
    this.muLong[i] = muLong;
    this.muLat[i] = muLat;
    this.roadDz[i] = 0;
    this.penetration[i] = 0;
    this.surfaceId[i] = 0;
  }

  /** True when every valid contact has the normal exactly (0, 0, 1). */
  isLevel(): boolean {
    for (let i = 0; i < 4; i++) {
      if (!this.valid[i]) continue;
      if (this.normal[3 * i] !== 0 || this.normal[3 * i + 1] !== 0 || !(this.normal[3 * i + 2] > 0)) return false;
    }
    return true;
  }
}
