/** What happens in a scene that its users want to hear about (the server logs these). Times are simulation seconds. */
export type SceneEvent =
  | { readonly type: 'ego_connected'; readonly egoId: string; readonly t: number }
  | { readonly type: 'ego_stale'; readonly egoId: string; readonly t: number; readonly ageS: number }
  | { readonly type: 'ego_resumed'; readonly egoId: string; readonly t: number }
  | { readonly type: 'ego_forgotten'; readonly egoId: string; readonly t: number; readonly reason: 'timeout' | 'reset' | 'removed' }
  | { readonly type: 'ego_collided'; readonly egoId: string; readonly t: number; readonly npcIds: readonly number[] }
  /** an ego crossed a stop line on red (logged; not counted against the NPCs) */
  | { readonly type: 'ego_ran_red'; readonly egoId: string; readonly t: number; readonly junction: string; readonly group: string }
  /**
   * a test case's attempt was armed or has ended (src/scenario/story-host.ts, told by the server's story desk);
   * egoId: the vehicle under test; result: the attempt's JSON result once it has ended
   */
  | { readonly type: 'test_case'; readonly egoId: string; readonly t: number; readonly case: string; readonly attempt: number; readonly state: 'armed' | 'ended'; readonly status: string; readonly reason: string; readonly result: unknown };

export type SceneEventListener = (event: SceneEvent) => void;
