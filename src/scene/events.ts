/** What happens in a scene that its users want to hear about (the server logs these). Times are simulation seconds. */
export type SceneEvent =
  | { readonly type: 'ego_connected'; readonly egoId: string; readonly t: number }
  | { readonly type: 'ego_stale'; readonly egoId: string; readonly t: number; readonly ageS: number }
  | { readonly type: 'ego_resumed'; readonly egoId: string; readonly t: number }
  | { readonly type: 'ego_forgotten'; readonly egoId: string; readonly t: number; readonly reason: 'timeout' | 'reset' | 'removed' }
  | { readonly type: 'ego_collided'; readonly egoId: string; readonly t: number; readonly npcIds: readonly number[] }
  /**
   * an NPC crossed a stop line on red (kind red: its movement's group, or the approach's through group it inherits)
   * or a stop sign's without a full stop (kind stop_sign), judged from geometry whether the rules run or not
   */
  | { readonly type: 'npc_ran_line'; readonly npcId: number; readonly t: number; readonly kind: 'red' | 'stop_sign'; readonly junction: string; readonly group: string; readonly inherited: boolean; readonly turn: string; readonly speed: number }
  /** an ego crossed a stop line on red (logged; not counted against the NPCs) */
  | { readonly type: 'ego_ran_red'; readonly egoId: string; readonly t: number; readonly junction: string; readonly group: string }
  /**
   * a test case's attempt was armed or has ended (src/scenario/story-host.ts, told by the server's story desk);
   * egoId: the vehicle under test; result: the attempt's JSON result once it has ended
   */
  | { readonly type: 'test_case'; readonly egoId: string; readonly t: number; readonly case: string; readonly attempt: number; readonly state: 'armed' | 'ended'; readonly status: string; readonly reason: string; readonly result: unknown };

export type SceneEventListener = (event: SceneEvent) => void;
