/**
 * CLI fixture (session 7): controllers that replace built-ins the harness also uses. Each
 * follows the replicas pattern and then misbehaves; none may make a check pass.
 */
import { misbehaving } from './misbehaving.js';

/** `Math.max = () => 0` in a reconcile (the harness's scheduler and kernel use Math.max). */
export const replacesMathMax = misbehaving('replaces-math-max', () => {
  Math.max = () => 0;
});
