/**
 * Switches only the benchmark flips (bench/trust.ts), in its own process, to measure what the
 * trust checks cost a model call against the same call without them (issue 27,
 * `trust.checkOverheadMs`). Nothing else sets them: there is no environment variable or setting
 * that turns a check off in a deployment.
 */
export const benchSwitches = {
  /** Taint derivation before a model call and the budget reservation around it (model-step.ts, for both hosts). */
  trustChecks: true,
};
