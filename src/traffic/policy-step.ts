/**
 * The policy step, one loop for `vils eval` and the live scene: the stepper observes its agents into the
 * caller's input, the caller runs the policy once (synchronously: nothing else runs in between), and the
 * stepper applies the result (the live engine: actions → shield → dynamics; the evaluation: actions →
 * dynamics). Keeping the inference call out of the steppers keeps them pure functions of their data.
 */
import { runPolicy, type PolicyInput } from '../policy/input.js';
import type { PolicyResult, PolicySession } from '../policy/session.js';

export interface PolicyStepper {
  /** Writes the observations of the agents to act into `input` (input.n of them). */
  observe(input: PolicyInput): void;
  /** Applies the policy's logits and actions for those agents and advances one step; `inferenceMs` is for timings. */
  apply(result: PolicyResult, inferenceMs: number): void;
}

/** observe → one inference → apply. */
export function stepPolicy(stepper: PolicyStepper, policy: PolicySession, input: PolicyInput): void {
  stepper.observe(input);
  const t0 = performance.now();
  const result = runPolicy(policy, input);
  stepper.apply(result, performance.now() - t0);
}
