/**
 * CLI fixture: the bug zoo's hot-looping Website controller (it stamps status on every reconcile;
 * each write triggers the next), with one spec (no revert) and no environment actor. Red team
 * N7b: judged only by `recovery` and `status-truthfulness`, neither of which has anything to
 * judge in such a run, it must not pass.
 */
import type { CheckOptions } from '../../../src/harness/check-options.js';
export { buggyWebsite } from '../../../examples/bug-zoo/hot-loop/buggy.js';
export const checkOptions: CheckOptions = {
  objects: { kind: 'Website', name: 'shop', spec: [{ domain: 'shop.example.com' }] },
  // writes reach the watch 20 ms later: the loop feeds itself at about 50 writes a second
  scenarioOptions: { watchLatencyMs: 20 },
  faultWindowMs: 5_000,
  settleMs: 10_000,
  tailMs: 2_000,
};
