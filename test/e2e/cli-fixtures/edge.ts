/** CLI fixture: one controller that loses its only event (fails convergence). */
import type { CheckOptions } from '../../../src/harness/check-options.js';
export { edgeTriggered } from '../../../examples/replicas/edge-triggered.js';
export const checkOptions: CheckOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 3 }], status: { replicas: 0 } } };
