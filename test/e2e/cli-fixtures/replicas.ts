/** CLI fixture: both replicas controllers of the reference experiment, with check options. */
import type { CheckOptions } from '../../../src/harness/check-options.js';
export { edgeTriggered } from '../../../examples/replicas/edge-triggered.js';
export { levelTriggered } from '../../../examples/replicas/level-triggered.js';

export const checkOptions: CheckOptions = {
  objects: { kind: 'ReplicaSet', spec: [{ replicas: 3 }, { replicas: 1 }], status: { replicas: 0 } },
};
