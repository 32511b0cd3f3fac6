import fc from 'fast-check';
import type { ObjectTemplate } from '../../src/arbitrary/workload.js';

/** Replica objects as the reference experiment creates them: desired in spec, actual 0 in status. */
export const replicaObjects: ObjectTemplate = {
  kind: 'ReplicaSet',
  // at least 1: with 0 the edge-triggered controller never writes observedGeneration even without faults
  spec: fc.record({ replicas: fc.integer({ min: 1, max: 5 }) }),
  status: { replicas: 0 },
};
