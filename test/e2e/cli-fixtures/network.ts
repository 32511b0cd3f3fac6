/**
 * Robustness fixture: a reconciler that calls the real network through the global `fetch`. With
 * a downstream configured, the run routes the global fetch into the simulation, where an
 * unhandled request is an error (no request ever leaves the process).
 */
import { defineController } from '../../../src/index.js';
import type { CheckOptions } from '../../../src/harness/check-options.js';

export const callsNetwork = defineController({
  name: 'calls-network',
  for: 'ReplicaSet',
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
    if (!rs || rs.status.observedGeneration === rs.metadata.generation) return;
    // the real network: 127.0.0.1:9 (discard) on this machine, never reached
    const res = await fetch('http://127.0.0.1:9/scale', { method: 'POST', body: JSON.stringify({ replicas: rs.spec.replicas }) });
    if (!res.ok) throw new Error(`scale failed: ${res.status}`);
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
  },
});

export const checkOptions: CheckOptions = {
  objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }], status: { replicas: 0 } },
  // no services, no handlers: every request is unhandled
  downstream: () => ({}),
  runs: 5,
};
