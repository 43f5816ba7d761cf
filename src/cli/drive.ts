/**
 * `vils drive [--map <file>] [--npcs 30] [--seconds 60] [--seed 1] [--json]`: runs the NPC engine on a
 * road map without a clock or clients, as fast as it goes, and reports what the NPCs did: trips
 * (spawn or new goal → goal), how many reached their goal, and how many touched a vehicle or a road edge.
 * A sanity check for a new map and the source of the demo track's figures.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GeoFrame, FMTC_ORIGIN } from '../geo/frame.js';
import { loadMapFile } from '../map/scene-json.js';
import { PolicySession, projectRoot, resolvePolicyModel } from '../policy/index.js';
import { DEFAULT_MAP } from '../server/app.js';
import { VilsSession } from '../server/session.js';
import { UsageError, type Command } from './commands.js';

export interface DriveResult {
  map: string;
  npcs: number;
  seconds: number;
  trips: number;
  reached_goal: number;
  abandoned: number;
  under_way: number;
  stuck_over_60s: number;
  with_collision: number;
  with_offroad: number;
  goal_rate: number;
  collision_rate: number;
  offroad_rate: number;
  /** share of NPC-steps spent touching a vehicle / a road edge */
  collision_step_share: number;
  offroad_step_share: number;
  /** share of the NPCs that touched a vehicle / a road edge at least once */
  npcs_ever_collided: number;
  npcs_ever_offroad: number;
  wall_seconds: number;
}

export async function driveMap(opts: { mapPath: string; npcs: number; seconds: number; seed: number; modelPath?: string }): Promise<DriveResult> {
  const map = loadMapFile(opts.mapPath);
  const origin = map.mapMetadata?.origin ?? FMTC_ORIGIN;
  const policy = await PolicySession.load(resolvePolicyModel({ model: opts.modelPath }));
  try {
    const session = new VilsSession(map, policy, new GeoFrame({ lat: origin.lat, lon: origin.lon }), { npc_target: opts.npcs, seed: opts.seed });
    session.reset();
    const steps = Math.round(opts.seconds * session.config.step_hz);
    const t0 = performance.now();
    let npcSteps = 0, collSteps = 0, offSteps = 0;
    const everColl = new Set<number>(), everOff = new Set<number>(), seen = new Set<number>();
    for (let k = 0; k < steps; k++) {
      const f = await session.stepOnce(k * 100, k / session.config.step_hz);
      for (const n of f.npcs) {
        npcSteps++;
        seen.add(n.id);
        if (n.collided) { collSteps++; everColl.add(n.id); }
        if (n.offroad) { offSteps++; everOff.add(n.id); }
      }
    }
    const wall = (performance.now() - t0) / 1000;
    const t = session.trips;
    const underWay = session.openTripCount();
    const stuck = session.openTripCount(60 * session.config.step_hz);
    // trips still under way have not failed yet: goal rate over the trips that ended
    const ended = t.reachedGoal + t.abandoned;
    return {
      map: map.label, npcs: opts.npcs, seconds: opts.seconds, trips: t.started, reached_goal: t.reachedGoal, abandoned: t.abandoned,
      under_way: underWay, stuck_over_60s: stuck, with_collision: t.withCollision, with_offroad: t.withOffroad,
      goal_rate: ended ? t.reachedGoal / ended : 0,
      collision_rate: ended ? t.withCollision / ended : 0,
      offroad_rate: ended ? t.withOffroad / ended : 0,
      collision_step_share: npcSteps ? collSteps / npcSteps : 0,
      offroad_step_share: npcSteps ? offSteps / npcSteps : 0,
      npcs_ever_collided: seen.size ? everColl.size / seen.size : 0,
      npcs_ever_offroad: seen.size ? everOff.size / seen.size : 0,
      wall_seconds: wall,
    };
  } finally {
    await policy.release();
  }
}

export const driveCommand: Command = {
  name: 'drive',
  summary: 'run NPCs on a map headless for some simulated time and report goal / collision / off-road rates',
  usage: 'vils drive [--map maps/demo-track.json] [--npcs 30] [--seconds 60] [--seed 1] [--model <onnx>] [--json]',
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { map: { type: 'string' }, npcs: { type: 'string' }, seconds: { type: 'string' }, seed: { type: 'string' }, model: { type: 'string' }, json: { type: 'boolean' } } });
    const npcs = Number(values.npcs ?? 30);
    const seconds = Number(values.seconds ?? 60);
    const seed = Number(values.seed ?? 1);
    if (!Number.isInteger(npcs) || npcs < 1 || npcs > 63) throw new UsageError('--npcs must be 1..63');
    if (!(seconds > 0)) throw new UsageError('--seconds must be positive');
    const r = await driveMap({ mapPath: values.map ?? join(projectRoot(), DEFAULT_MAP), npcs, seconds, seed, modelPath: values.model });
    if (values.json) {
      console.log(JSON.stringify(r));
      return 0;
    }
    const pct = (v: number) => `${(100 * v).toFixed(1)} %`;
    console.log(`${r.npcs} NPCs on ${r.map} for ${r.seconds} s of simulated time (${r.wall_seconds.toFixed(1)} s wall)`);
    console.log(`trips ${r.trips}: reached goal ${r.reached_goal}, abandoned ${r.abandoned}, under way at the end ${r.under_way} (over 60 s old: ${r.stuck_over_60s})`);
    console.log(`of the ${r.reached_goal + r.abandoned} trips that ended: goal ${pct(r.goal_rate)}, collision ${pct(r.collision_rate)}, off-road ${pct(r.offroad_rate)}`);
    console.log(`NPC-steps touching a vehicle ${pct(r.collision_step_share)}, a road edge ${pct(r.offroad_step_share)}; NPCs that ever did: ${pct(r.npcs_ever_collided)}, ${pct(r.npcs_ever_offroad)}`);
    return 0;
  },
};
