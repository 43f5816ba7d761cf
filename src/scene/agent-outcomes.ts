/**
 * Outcome counts of a set of agents as GPUDrive's evaluation counts them (each agent once per outcome), and
 * their rates: `vils eval`'s figures, kept apart from the live scene's per-step quality figures (quality.ts)
 * because they count agents, not steps.
 */

/** Outcome counts of a set of agents (GPUDrive evaluation: each agent counts once per outcome). */
export interface AgentOutcomes {
  agents: number;
  goal: number;
  collided: number;
  offroad: number;
}

export function outcomeRates(o: AgentOutcomes): { agents: number; goal_rate: number; collision_rate: number; offroad_rate: number } {
  const r = (k: number) => (o.agents === 0 ? 0 : k / o.agents);
  return { agents: o.agents, goal_rate: r(o.goal), collision_rate: r(o.collided), offroad_rate: r(o.offroad) };
}

export function sumOutcomes(list: readonly AgentOutcomes[]): AgentOutcomes {
  const t: AgentOutcomes = { agents: 0, goal: 0, collided: 0, offroad: 0 };
  for (const o of list) {
    t.agents += o.agents;
    t.goal += o.goal;
    t.collided += o.collided;
    t.offroad += o.offroad;
  }
  return t;
}
