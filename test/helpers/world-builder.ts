/** Hand-made worlds for traffic tests. */
import { AgentKind, World, type AgentKindId } from '../../src/traffic/world.js';

export interface AgentSpec {
  x: number;
  y: number;
  yaw?: number;
  speed?: number;
  length?: number;
  width?: number;
  goal?: [number, number];
  kind?: AgentKindId;
}

export function makeWorld(agents: AgentSpec[], capacity = agents.length): World {
  const w = new World(Math.max(capacity, 1), 1);
  for (const a of agents) {
    const s = w.allocate(a.kind ?? AgentKind.Controlled);
    const yaw = a.yaw ?? 0;
    const v = a.speed ?? 0;
    w.x[s] = a.x; w.y[s] = a.y; w.yaw[s] = yaw;
    w.vx[s] = v * Math.cos(yaw); w.vy[s] = v * Math.sin(yaw);
    w.length[s] = a.length ?? 4.5; w.width[s] = a.width ?? 2;
    w.goalX[s] = a.goal?.[0] ?? a.x; w.goalY[s] = a.goal?.[1] ?? a.y;
  }
  return w;
}
