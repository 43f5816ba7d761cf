/**
 * The policy step, one loop for `vils eval` and the live scene: the stepper observes its agents into the
 * caller's input, the caller runs the policy once (synchronously: nothing else runs in between), and the
 * stepper applies the result (the live engine: actions → shield → dynamics; the evaluation: actions →
 * dynamics). Keeping the inference call out of the steppers keeps them pure functions of their data.
 * A stepper's work that needs no policy result (the live engine: predicting every vehicle for the shield) is
 * done between starting the run and taking its result: while it runs, for a session on the inference thread.
 */
import { finishPolicy, startPolicy, type PolicyInput } from '../policy/input.js';
import type { PolicyResult, PolicySession } from '../policy/session.js';

export interface PolicyStepper {
  /** Writes the observations of the agents to act into `input` (input.n of them). */
  observe(input: PolicyInput): void;
  /** Work of the step that needs no policy result (done while the policy infers, where it runs on its own thread). */
  prepare?(): void;
  /** Applies the policy's logits and actions for those agents and advances one step; `inferenceMs` is for timings. */
  apply(result: PolicyResult, inferenceMs: number): void;
}

/** observe → one inference (prepare meanwhile) → apply. */
export function stepPolicy(stepper: PolicyStepper, policy: PolicySession, input: PolicyInput): void {
  policy.soon();
  stepper.observe(input);
  startPolicy(policy, input);
  let result: PolicyResult;
  try {
    stepper.prepare?.();
  } finally {
    // (taken even when prepare threw: the session is free for the next step)
    result = finishPolicy(policy, input);
  }
  stepper.apply(result, policy.inferenceMs);
}
