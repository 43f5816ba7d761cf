/**
 * `vils drive [--map <file>] [--npcs 30] [--seconds 60] [--seed 1] [--json]`: runs a live scene on a road map
 * headless, as fast as it goes on simulation time, and reports the NPC quality figures (src/scene/quality):
 * trips (spawn or new goal → goal) and how many reached their goal, NPC-steps touching a vehicle or a road
 * edge. A sanity check for a new map and the source of the published NPC figures.
 */
import { parseArgs } from 'node:util';
import { defaultMapPath, setupScene, type QualitySummary, type SceneConfig } from '../scene/index.js';
import { HELD_RULES, type JunctionHeld, type JunctionStand, type JunctionSummary } from '../scene/rules/index.js';
import { MAX_PEDESTRIANS, type PeopleSummary } from '../scene/people/index.js';
import { MAX_NPCS, POLICY_DT } from '../traffic/engine.js';
import { SceneSession } from '../session/scene-session.js';
import { defaultTimeSettings, type TimeSettings } from '../time/settings.js';
import { UsageError, type Command } from './commands.js';

/** "J3 1144 NPC-s (red 1138, yellow 6)" */
function heldText(h: JunctionHeld): string {
  const parts = HELD_RULES.filter((k) => Math.round(h[k]) > 0).map((k) => `${k.replace('_', ' ')} ${Math.round(h[k])}`);
  return `${h.junction} ${Math.round(h.npc_s)} NPC-s (${parts.join(', ')})`;
}

function standText(st: JunctionStand): string {
  const why = st.held_by === 'none' ? 'behind traffic' : st.held_by === 'queue' ? 'queued behind a held vehicle' : `held by ${st.held_by.replace('_', ' ')}`;
  return `${st.movement} ${st.seconds} s from ${st.from_s} s (NPC ${st.npc}, ${why})`;
}

/**
 * The junction figures are taken where the rules place each NPC at a junction (its approach, its movement, its
 * stop line), once per policy step: with the rules off (--no-rules) nothing places them, so they read 0 however
 * much traffic crossed — said, never printed as a 0 that reads as measured.
 */
const RULE_FIGURES = ['red_light_violations', 'stop_sign_violations', 'junction_stand_max_s', 'junction_stands_over_10s', 'box_blocking_npc_s', 'throughput_veh_per_h_per_lane', 'throughput_veh_per_green_h_per_lane', 'movements_completed', 'held_by_junction'] as const;
const NO_RULES_WHY = 'not measured with --no-rules: the junction figures are taken where the traffic rules place each NPC at a junction, and the rules are off';

export interface DriveResult extends QualitySummary, Omit<JunctionSummary, 'junctions'>, PeopleSummary {
  /** junctions of the map by control (signal, all_way_stop, stop, yield, priority) */
  junction_controls: Record<string, number>;
  /** NPCs obeyed the traffic rules (--no-rules: they did not; the signals ran either way) */
  traffic_rules: boolean;
  /** figures this run could not measure, and why (with --no-rules: the junction figures, which the rules take) */
  not_measured: Record<string, string>;
  /** signals that run alone were vehicle-actuated (--actuated) */
  signals_actuated: boolean;
  /** right turns on red after a full stop (--no-right-on-red: they waited for green) */
  right_turn_on_red: boolean;
  /** how NPCs picked their forks, when --route-choice was given */
  route_choice?: SceneConfig['route_choice'];
  map: string;
  npcs: number;
  seconds: number;
  seed: number;
  /** trips under way at the end that started more than 60 s before it */
  stuck_over_60s: number;
  /** loading the map and the policy model, and building the scene [s] (not in wall_seconds) */
  setup_seconds: number;
  /** stepping the scene for `seconds` of simulated time [s] */
  wall_seconds: number;
  /** agent-steps per wall-clock second */
  agent_steps_per_s: number;
  /** simulated seconds per wall-clock second while stepping */
  real_time_factor: number;
}

/** The session's conductor for a headless drive: as fast as it goes, one core step per policy step (the NPC world is its only asset). */
const DRIVE_TIME: TimeSettings = { ...defaultTimeSettings('afap'), step_ms: POLICY_DT * 1000, dmax_ms: POLICY_DT * 1000 };

export async function driveMap(opts: { mapPath: string; npcs: number; seconds: number; seed: number; modelPath?: string; rules?: boolean; rightOnRed?: boolean; actuated?: boolean; routeChoice?: SceneConfig['route_choice']; pedestrians?: number }): Promise<DriveResult> {
  const tSetup = performance.now();
  const rules = opts.rules ?? true;
  const rightOnRed = opts.rightOnRed ?? true;
  const { scene, map, release } = await setupScene({ mapPath: opts.mapPath, modelPath: opts.modelPath, config: { npc_target: opts.npcs, seed: opts.seed, traffic_rules: rules, right_turn_on_red: rightOnRed, ...(opts.routeChoice ? { route_choice: opts.routeChoice } : {}), ...(opts.pedestrians !== undefined ? { pedestrians: opts.pedestrians } : {}) }, signals: opts.actuated ? { actuated: true } : undefined });
  // the scene run by a session, as `vils serve` runs it (no egos, no story, no runner: stepped as fast as it goes)
  const session = new SceneSession(scene, { time: DRIVE_TIME, periodS: () => POLICY_DT });
  try {
    session.reset();
    const setup = (performance.now() - tSetup) / 1000;
    const steps = Math.round(opts.seconds / POLICY_DT);
    const t0 = performance.now();
    for (let k = 0; k < steps; k++) await session.advanceTo(k * POLICY_DT);
    const wall = (performance.now() - t0) / 1000;
    const q = scene.quality.summary();
    const { junctions, ...j } = scene.control.metrics.summary();
    return {
      map: map.label, npcs: opts.npcs, seconds: opts.seconds, seed: opts.seed, ...q, traffic_rules: rules, not_measured: rules ? {} : Object.fromEntries(RULE_FIGURES.map((k) => [k, NO_RULES_WHY])), right_turn_on_red: rightOnRed, signals_actuated: opts.actuated === true, ...(opts.routeChoice ? { route_choice: opts.routeChoice } : {}), junction_controls: junctions, ...j, ...scene.people.summary(),
      stuck_over_60s: scene.quality.openTripCount(scene.steps, 60 / POLICY_DT),
      setup_seconds: setup,
      wall_seconds: wall,
      agent_steps_per_s: q.npc_steps / wall,
      real_time_factor: opts.seconds / wall,
    };
  } finally {
    await session.close();
    await release();
  }
}

function routeChoiceFlag(v: string | undefined): SceneConfig['route_choice'] | undefined {
  if (v === undefined || v === 'random' || v === 'queues') return v;
  throw new UsageError(`--route-choice must be random or queues, got ${v}`);
}

export const driveCommand: Command = {
  name: 'drive',
  summary: 'run NPCs on a map headless for some simulated time and report the NPC quality figures',
  usage: 'vils drive [--map maps/demo-track.json] [--npcs 30] [--seconds 60] [--seed 1] [--model <onnx>] [--no-rules] [--no-right-on-red] [--actuated] [--route-choice random|queues] [--pedestrians 20] [--json]',
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { map: { type: 'string' }, npcs: { type: 'string' }, seconds: { type: 'string' }, seed: { type: 'string' }, model: { type: 'string' }, json: { type: 'boolean' }, 'no-rules': { type: 'boolean' }, 'no-right-on-red': { type: 'boolean' }, actuated: { type: 'boolean' }, 'route-choice': { type: 'string' }, pedestrians: { type: 'string' } } });
    const npcs = Number(values.npcs ?? 30);
    const seconds = Number(values.seconds ?? 60);
    const seed = Number(values.seed ?? 1);
    if (!Number.isInteger(npcs) || npcs < 1 || npcs > MAX_NPCS) throw new UsageError(`--npcs must be 1..${MAX_NPCS}`);
    if (!(seconds > 0)) throw new UsageError('--seconds must be positive');
    if (!Number.isInteger(seed) || seed < 0) throw new UsageError('--seed must be a non-negative integer');
    const pedestrians = values.pedestrians === undefined ? undefined : Number(values.pedestrians);
    if (pedestrians !== undefined && !(Number.isInteger(pedestrians) && pedestrians >= 0 && pedestrians <= MAX_PEDESTRIANS)) throw new UsageError(`--pedestrians must be 0..${MAX_PEDESTRIANS}`);
    const r = await driveMap({ mapPath: values.map ?? defaultMapPath(), npcs, seconds, seed, modelPath: values.model, rules: !values['no-rules'], rightOnRed: !values['no-right-on-red'], actuated: values.actuated === true, routeChoice: routeChoiceFlag(values['route-choice']), pedestrians });
    if (values.json) {
      console.log(JSON.stringify(r));
      return 0;
    }
    const pct = (v: number) => `${(100 * v).toFixed(1)} %`;
    console.log(`${r.npcs} NPCs on ${r.map} for ${r.seconds} s of simulated time, seed ${r.seed} (${r.wall_seconds.toFixed(1)} s wall after ${r.setup_seconds.toFixed(1)} s setup: ×${r.real_time_factor.toFixed(0)} real time, ${Math.round(r.agent_steps_per_s)} agent-steps/s)`);
    console.log(`trips ${r.trips}: reached goal ${r.reached_goal}, abandoned ${r.abandoned}, under way at the end ${r.under_way} (over 60 s old: ${r.stuck_over_60s})`);
    console.log(`of the ${r.reached_goal + r.abandoned} trips that ended: goal ${pct(r.goal_rate)}, collision ${pct(r.trip_collision_rate)}, off-road ${pct(r.trip_offroad_rate)}`);
    console.log(r.crosswalks === 0 ? 'people: none (the map has no crosswalks)' : `people: ${r.pedestrians} at ${r.crosswalks} crosswalks, ${r.people_crossings} crossings started (${r.people_started_on_dont_walk} on don't-walk); struck by an NPC ${r.people_struck}, by an ego ${r.people_struck_by_ego}; NPCs onto a crosswalk with a person in their path ${r.npc_crosswalk_entries_with_person}; NPCs held for people ${r.npc_s_held_for_people} NPC-s`);
    console.log(`NPC-steps touching a vehicle ${pct(r.vehicle_contact_step_share)}, a road edge ${pct(r.road_edge_step_share)}; NPCs that ever did: ${pct(r.npcs_ever_collided)}, ${pct(r.npcs_ever_offroad)}`);
    const controls = Object.entries(r.junction_controls).map(([k, v]) => `${v} ${k.replace(/_/g, ' ')}`).join(', ') || 'none';
    if (!r.traffic_rules) {
      console.log(`junctions: ${controls} (rules off); red-light and stop-sign violations, stands, box blocking and throughput ${NO_RULES_WHY}`);
      console.log(`stuck ${r.stuck_npcs}, gridlocks broken up ${r.gridlock_recycles}, wrong-way steps ${r.wrong_way_steps}`);
      return 0;
    }
    console.log(`junctions: ${controls}${!r.right_turn_on_red ? ' (no right turn on red)' : ''}${r.signals_actuated ? ' (signals actuated)' : ''}; red-light violations ${r.red_light_violations}, stop-sign violations ${r.stop_sign_violations}; longest stand inside a junction ${r.junction_stand_max_s} s (${r.junction_stands_over_10s} over 10 s), box blocking ${r.box_blocking_npc_s} NPC-s`);
    if (r.long_stands.length) console.log(`stood in a junction over 10 s: ${r.long_stands.map(standText).join('; ')}`);
    if (r.held_by_junction.length) console.log(`held at their lines longest: ${r.held_by_junction.map(heldText).join('; ')}`);
    console.log(`throughput ${r.throughput_veh_per_h_per_lane} vehicles/h per approach lane${r.throughput_veh_per_green_h_per_lane ? `, at signals ${r.throughput_veh_per_green_h_per_lane} per hour of green (busiest lane ${r.throughput_veh_per_green_h_max}; saturation ≈ 1,800)` : ''}; stuck ${r.stuck_npcs}, gridlocks broken up ${r.gridlock_recycles}, wrong-way steps ${r.wrong_way_steps}`);
    return 0;
  },
};
