/**
 * The controller the worker and heap benches check: the level-triggered replicas controller of
 * the reference experiment, over generated specs, under every fault kind.
 */
import fc from 'fast-check';
import type { CheckOptions } from '../src/harness/check-options.js';
export { levelTriggered } from '../examples/replicas/level-triggered.js';

export const checkOptions: CheckOptions = {
  objects: { kind: 'ReplicaSet', spec: fc.record({ replicas: fc.integer({ min: 0, max: 5 }) }), status: { replicas: 0 } },
};
