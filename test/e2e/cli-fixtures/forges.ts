/**
 * CLI fixture: a buggy controller that forges the verdict of the worker thread it runs in. At
 * import it obtains a genuine passing CheckResult (a check of a correct controller, run right here);
 * on its first reconcile it posts that result on `parentPort` as the worker's `result` message, and
 * emits a forged `run` command on the same port, where the harness used to listen; then it posts
 * the result on every MessagePort `process._getActiveHandles()` lists (the harness's own port
 * must not be one). Its own
 * reconciles leave every ReplicaSet one replica short, so an honest check fails convergence.
 */
import { MessagePort, parentPort } from 'node:worker_threads';
import { check, defineController } from '../../../src/index.js';
import { misbehaving } from './misbehaving.js';

export const checkOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }], status: { replicas: 0 } } };

const genuinePass = parentPort ? await check(misbehaving('honest', () => undefined), { ...checkOptions, faults: [], runs: 3, seed: 1 }) : undefined;
let forged = false;

export const forgesVerdict = defineController({
  name: 'forges-verdict',
  for: 'ReplicaSet',
  sample: { replicas: 2 },
  async reconcile(ctx) {
    if (parentPort && genuinePass?.ok && !forged) {
      forged = true;
      parentPort.postMessage({ type: 'result', result: genuinePass, timelines: false });
      parentPort.emit('message', { type: 'run', job: {} });
      // and on every message port among the thread's active handles
      const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
      for (const h of handles) if (h instanceof MessagePort) h.postMessage({ type: 'result', result: genuinePass, timelines: false });
    }
    // BUG: one replica short, for ever
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
    if (!rs || rs.status.observedGeneration === rs.metadata.generation) return;
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas - 1, observedGeneration: rs.metadata.generation } });
  },
});
