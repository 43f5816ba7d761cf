// The Simulation API from experiment code (README "Scenarios"): node examples/simulation-api.mjs
// (after `npm run build`). A step steer of your own on VDSim's step-steer experiment, then the metrics and the CSV,
// written to results/examples/step_steer.csv (results/ is git-ignored; it used to land in the repository root).
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Simulation } from 'vils';

const sim = await Simulation.load('configs/experiments/step_steer.yaml');
while (!sim.done()) {
  const t = sim.time();
  sim.setControl({ steer: t > 2 ? 0.03 : 0, throttle: 0.15, brake: 0 }); // one step; the manoeuvre resumes without it
  await sim.step();
  if (Math.abs(t - Math.round(t)) < 1e-9) {
    const gnss = sim.getData('gnss');
    console.log(`t ${t.toFixed(1)} s  gnss (${gnss.x.toFixed(2)}, ${gnss.y.toFixed(2)})  vx ${sim.state().vx.toFixed(2)} m/s`);
  }
}
console.log(sim.metrics(['peak_ay', 'yaw_rate_ss', 'overshoot', 'vmax', 'dist']));
const outDir = fileURLToPath(new URL('../results/examples/', import.meta.url));
mkdirSync(outDir, { recursive: true });
const csv = `${outDir}step_steer.csv`;
writeFileSync(csv, sim.csv());
console.log(`wrote ${csv}`);
await sim.close();
