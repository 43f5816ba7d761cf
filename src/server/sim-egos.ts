/**
 * A scenario's simulated egos in a live, real-time scene (`vils serve --scenario`): each ego's plant is an asset
 * of the scene's time conductor (scene-time.ts, with the world asset of src/scenario/assets.ts: the scenario's
 * own exchange rule), stepped through the scene inputs so every ego report is logged in order and recordings
 * replay; in realtime an ego that cannot keep up within a tick's budget is left behind and reported, never
 * waited for. They appear in npc_states.egos and on the web map like real
 * cars, and are driven by their autopilot or from outside — VDS1 CMD through the scenario's comms file, or the
 * JSON data port at /api/io — with the fail-safe after 0.1 s of silence. Real cars may join the same scene.
 */
import { EgoCommsLink } from '../scenario/comms-link.js';
import type { Scenario } from '../scenario/config.js';
import { SimEgo } from '../scenario/sim-ego.js';
import { placeEgos } from '../scenario/world.js';
import type { HostAttachment, SceneHost } from './host.js';
import { MAX_TICK_HZ } from './runner.js';

export interface SimEgoSession {
  egos: SimEgo[];
  link: EgoCommsLink;
}

export async function attachSimEgos(host: SceneHost, scenario: Scenario, opts: { bindAddress?: string } = {}): Promise<SimEgoSession> {
  const egos = scenario.egos.map((s) => new SimEgo(s, { ground: scenario.map.ground, line: scenario.map.line, cmdTimeoutS: 0.1, record: false }));
  const link = await EgoCommsLink.open(egos, scenario.run.mode === 'rt_comms' ? scenario.run.comms : null, { now: () => host.runner.simNow(), bindAddress: opts.bindAddress, running: () => host.runner.state === 'running' });
  const inputs = host.inputs;
  const report = (r: ReturnType<SimEgo['report']>, t: number) => void inputs.updateEgo(r, t).catch(() => undefined);
  host.time.attachEgos(egos, report, () => {
    for (const e of egos) e.reset();
    placeEgos(host.scene, egos, (id) => void inputs.removeNpc(id).catch(() => undefined), (r) => report(r, 0));
  });
  const attachment: HostAttachment = {
    status: () => ({
      scenario: scenario.name,
      mode: scenario.run.mode,
      comms: scenario.run.comms?.name ?? null,
      cmd_ports: link.cmdPorts,
      egos: egos.map((e) => ({ ego_id: e.id, vehicle_id: e.vehicle.id, level: e.spec.level, driver: e.spec.driver.kind, dt: e.spec.dt, t: e.time, failsafe: e.vehicle.watchdog.active, cmds: e.vehicle.cmdsAccepted })),
    }),
    close: async () => {
      host.runner.setMinTickHz(null);
      host.time.detachEgos();
      await link.close();
    },
  };
  host.attachments.set('sim_egos', attachment);
  // egos that talk to the outside (STATE over the comms file, commands from a control stack or /api/io) tick
  // on the runner at their own rate, so STATE leaves paced and a command acts within one plant step, not in a
  // burst per published frame
  const outside = egos.filter((e) => scenario.run.mode === 'rt_comms' || e.spec.driver.kind === 'external');
  if (outside.length > 0) host.runner.setMinTickHz(Math.min(MAX_TICK_HZ, Math.max(...outside.map((e) => 1 / e.spec.dt))));
  await host.runner.reset();
  return { egos, link };
}
