// The Simulation API from experiment code (README "Scenarios"): node examples/simulation-api.mjs
// (after `npm run build`). A step steer of your own on VDSim's step-steer experiment, then the metrics and the CSV.
import { writeFileSync } from 'node:fs';
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
writeFileSync('step_steer.csv', sim.csv());
await sim.close();
