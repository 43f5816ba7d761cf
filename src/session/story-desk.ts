/**
 * A test case served live (`vils serve --scenario <case.yaml>`): its story steps with the world at every policy
 * boundary (a StoryHook of the scene's time conductor), its actors go into the scene through the logged inputs
 * (a recording holds them, and replays them bit for bit), and an operator arms and resets numbered attempts
 * (REST: plugins/story.ts; the web map's test panel). The vehicle under test is the case's first ego: the
 * simulated one, or — with `--story-ego <ego_id>` — the real car reporting under that id, whose state then feeds
 * the triggers and criteria. Each attempt's arming and its end (with the result) are scene events: logged and
 * recorded on /vils/events.
 *
 * With the simulated ego, an attempt is armed at every reset (the scene starts at the case's beginning, as
 * `vils run` does); with the real car, when the operator arms it — the actors are placed around the car where
 * it is then — and an attempt whose car never reaches its start trigger ends "not started" after the case's
 * start_timeout_s (never passed).
 */
import type { FrameSink, PublishedFrame } from './runner.js';
import type { Scenario } from '../scenario/config.js';
import type { SimEgo } from '../scenario/sim-ego.js';
import { StoryHost, type AttemptState, type StorySceneSink } from '../scenario/story-host.js';
import { StoryRefused, type AttemptResult, type Happening, type StoryProblem } from '../scenario/story/index.js';
import type { StoryHook } from '../scenario/assets.js';
import { InputError, type SceneSnapshot } from '../scene/index.js';
import type { ServedSession, SessionAttachment } from './served.js';

/** A served session that shows its test case (the REST plugin reads `story`). */
export interface StoryServedSession extends ServedSession {
  story: StoryDesk | null;
}

/**
 * An arm that names an attempt other than the current one (a second click, another operator's arm in between):
 * 409, nothing changes. The client fetches GET /api/story and arms with the number it then sees.
 */
export class AttemptConflict extends Error {
  readonly statusCode = 409;
  constructor(readonly current: number, state: AttemptState, sent: number) {
    const what = state === 'armed' || state === 'running' ? 'is already armed' : state === 'ended' ? 'has ended' : 'is the latest';
    super(`attempt ${current} ${what} (the request named attempt ${sent}): GET /api/story, then arm with {"attempt": ${current}} to ${state === 'armed' || state === 'running' ? 'replace it' : 'arm the next'}`);
    this.name = 'AttemptConflict';
  }
}

/** attempts and happenings the desk keeps for the API (older ones are in the log and the recording) */
const KEEP_ATTEMPTS = 100;
const KEEP_HAPPENINGS = 200;

export interface StoryView {
  case: string;
  /** the vehicle under test: the scene's ego id (the real car's, or the simulated ego's) */
  ego: string;
  /** the story's id for it (the case's first ego) */
  story_ego: string;
  actors: string[];
  attempt: number;
  state: AttemptState;
  armed_at_s: number | null;
  /** attempts are armed at every reset (the simulated ego), or by the operator (the real car) */
  auto_arm: boolean;
  /** the attempt's result: live verdicts while it runs, the final one once it has ended (null before the first) */
  result: AttemptResult | null;
  happenings: Happening[];
  /** the attempts so far, newest last */
  attempts: Array<{ attempt: number; status: string; reason: string; armed_at_s: number; end_s: number | null }>;
}

export class StoryDesk implements StoryHook, FrameSink {
  readonly story: StoryHost;
  private readonly storyEgo: string;
  private readonly ego: string;
  private readonly autoArm: boolean;
  private armAtNext: boolean;
  private readonly history: StoryView['attempts'] = [];

  constructor(private readonly host: ServedSession, private readonly scenario: Scenario, simEgos: readonly SimEgo[], opts: { realEgo?: string } = {}) {
    const spec = scenario.story!;
    this.storyEgo = scenario.egos[0]?.id ?? 'ego';
    this.ego = opts.realEgo ?? this.storyEgo;
    this.autoArm = opts.realEgo === undefined;
    this.armAtNext = this.autoArm;
    const inputs = host.inputs;
    const quiet = () => undefined;
    const scene = host.scene;
    const sink: StorySceneSink = {
      lanes: scene.lanes,
      spawnClearanceM: scene.config.spawn_clearance_m,
      junctions: scene.control.layout.junctions.filter((c) => c.control === 'signal').map((c) => c.junction.id),
      updateEgo: (r, t) => void inputs.updateEgo(r, t).catch(quiet),
      removeEgo: (id) => void inputs.removeEgo(id).catch(quiet),
      spawnNpc: (req) => inputs.spawnNpc(req),
      removeNpc: (id) => void inputs.removeNpc(id).catch(quiet),
      setSignal: (i) => void inputs.setSignalLive(i).catch(quiet),
    };
    const alias = opts.realEgo !== undefined ? new Map([[this.storyEgo, opts.realEgo]]) : undefined;
    // a real car under test: each attempt is judged on whether its data held (its fixes, clock and connection,
    // the server's time given up after stalls or held by the conductor, the actors against their script)
    const judgeData = opts.realEgo !== undefined ? { car: opts.realEgo, givenUpS: () => host.runner.stats.slippedS + host.runner.stats.heldS } : undefined;
    this.story = new StoryHost(spec, sink, opts.realEgo !== undefined ? [] : simEgos, { egoAlias: alias, underTest: this.storyEgo, judgeData });
  }

  /** A frame went out (FrameSink): the server-stall gate measures the wall-clock gaps between frames. */
  publish(frame: PublishedFrame): void {
    this.story.frameOut(frame.snapshot.time, this.host.runner.epochNow());
  }

  /** The connection that drove `egoId` closed: an attempt under way on that car ends, invalid. */
  carDisconnected(egoId: string): void {
    if (egoId !== this.ego || this.autoArm) return;
    const t = this.host.runner.simNow();
    const was = this.story.state;
    this.story.carDisconnected(t);
    if (was !== 'ended' && this.story.state === 'ended') this.ended(t);
  }

  beforeBoundary(tS: number): void {
    if (this.armAtNext) {
      this.armAtNext = false;
      try {
        this.armNow(tS, this.host.scene.snapshot(tS));
      } catch (err) {
        this.host.scene.announce({ type: 'test_case', egoId: this.ego, t: tS, case: this.scenario.name, attempt: this.story.attempt + 1, state: 'ended', status: 'aborted', reason: (err as Error).message, result: null });
      }
    }
    this.story.beforeBoundary(tS);
  }

  afterBoundary(tS: number, snap: SceneSnapshot): void {
    const was = this.story.state;
    this.story.afterBoundary(tS, snap);
    if (was !== 'ended' && this.story.state === 'ended') this.ended(tS);
  }

  /**
   * The scene was reset: the attempt under way ends (its actors went with the scene's egos), an ended one's
   * actors still driving are forgotten likewise; auto-arm arms anew.
   */
  reset(): void {
    if (this.story.state === 'armed' || this.story.state === 'running') {
      this.story.resetAttempt(0, 'the scene was reset');
      this.ended(0);
    } else this.story.clearActors();
    this.armAtNext = this.autoArm;
  }

  /**
   * Attempt `current` + 1 now, around the vehicle under test where it is (or at the case's start gate).
   * `current` is the attempt number the client sees (GET /api/story `attempt`): another number is a conflict
   * (AttemptConflict, 409). The new attempt is checked before the one under way ends: a refusal (InputError,
   * with every problem) leaves that attempt and its actors as they were.
   */
  arm(current: number): StoryView {
    if (current !== this.story.attempt) throw new AttemptConflict(this.story.attempt, this.story.state, current);
    const t = this.host.runner.simNow();
    const snap = this.host.scene.snapshot(t);
    if (!this.present(snap)) throw new InputError(`the vehicle under test, ego ${this.ego}, is not in the scene: connect it (ego_state with ego_id "${this.ego}") before arming`);
    const problems = this.story.check(t, snap);
    if (problems.length) throw refusal(problems);
    if (this.story.state === 'armed' || this.story.state === 'running') {
      this.story.resetAttempt(t, 'armed again by the operator');
      this.ended(t);
    }
    try {
      this.armNow(t, snap);
    } catch (err) {
      if (err instanceof StoryRefused) throw refusal(err.problems);
      throw err;
    }
    return this.view();
  }

  /** Ends the attempt under way (aborted) and takes its actors out of the scene; after a verdict, back to idle (the actors still driving leave). */
  resetAttempt(): StoryView {
    const t = this.host.runner.simNow();
    const running = this.story.state === 'armed' || this.story.state === 'running';
    this.story.resetAttempt(t);
    if (running) this.ended(t);
    return this.view();
  }

  private present(snap: SceneSnapshot): boolean {
    return this.autoArm || snap.egos.some((e) => e.egoId === this.ego && !e.stale);
  }

  private armNow(tS: number, snap: SceneSnapshot): void {
    this.story.arm(tS, snap);
    this.history.push({ attempt: this.story.attempt, status: 'running', reason: '', armed_at_s: tS, end_s: null });
    if (this.history.length > KEEP_ATTEMPTS) this.history.shift();
    this.host.scene.announce({ type: 'test_case', egoId: this.ego, t: tS, case: this.scenario.name, attempt: this.story.attempt, state: 'armed', status: 'running', reason: '', result: null });
  }

  private ended(tS: number): void {
    const r = this.story.result();
    const h = this.history.find((a) => a.attempt === this.story.attempt);
    if (h) Object.assign(h, { status: r.status, reason: r.reason, end_s: r.end_s });
    this.host.scene.announce({ type: 'test_case', egoId: this.ego, t: tS, case: this.scenario.name, attempt: this.story.attempt, state: 'ended', status: r.status, reason: r.reason, result: r });
  }

  /** The simulated egos, once attached (their plants are the story's view of them). */
  useSimEgos(egos: readonly SimEgo[]): void {
    this.story.useSimEgos(egos);
  }

  view(): StoryView {
    const s = this.story;
    return {
      case: this.scenario.name, ego: this.ego, story_ego: this.storyEgo, actors: s.actorIds, attempt: s.attempt, state: s.state,
      armed_at_s: Number.isFinite(s.armedAt) ? s.armedAt : null, auto_arm: this.autoArm,
      result: s.attempt > 0 ? s.result() : null, happenings: s.happenings.slice(-KEEP_HAPPENINGS), attempts: [...this.history],
    };
  }
}

function refusal(problems: readonly StoryProblem[]): InputError {
  return new InputError(`attempt refused: ${problems.map((p) => `${p.key}: ${p.message}`).join('; ')}`);
}

/**
 * Serves a scenario's test case on a host: the desk steps with the world from the next reset (the caller
 * resets the runner next, as attachSimEgos does) and shows in GET /api/status `story`.
 */
export function attachStory(host: StoryServedSession, scenario: Scenario, simEgos: readonly SimEgo[], opts: { realEgo?: string } = {}): StoryDesk {
  const desk = new StoryDesk(host, scenario, simEgos, opts);
  host.time.setStory(desk);
  const attachment: SessionAttachment = {
    status: () => {
      const v = desk.view();
      return { case: v.case, ego: v.ego, attempt: v.attempt, state: v.state, status: v.result?.status ?? null, auto_arm: v.auto_arm };
    },
    close: async () => undefined,
  };
  host.attachments.set('story', attachment);
  host.story = desk;
  host.runner.addSink(desk);
  return desk;
}
