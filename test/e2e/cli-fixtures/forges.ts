/**
 * CLI fixture: a buggy controller that forges the verdict of the worker thread it runs in. At
 * import it obtains a genuine passing CheckResult (a check of a correct controller, run right here);
 * on its first reconcile it posts that result on `parentPort` as the worker's `result` message, and
 * emits a forged `run` command on the same port, where the harness used to listen; then it posts
 * the result on every MessagePort `process._getActiveHandles()` lists (the harness's own port
 * must not be one), and on every port its wrapped EventTarget and MessagePort methods saw since
 * its import (a listener added, a message dispatched). Its own
 * reconciles leave every ReplicaSet one replica short, so an honest check fails convergence.
 */
import { MessagePort, parentPort } from 'node:worker_threads';
import { check, defineController } from '../../../src/index.js';
import { misbehaving } from './misbehaving.js';

export const checkOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 3 }], status: { replicas: 0 } } };

// catches any port a listener is added to or a message dispatched on, as `this`, by wrapping every
// method of the ports' prototypes, Node's symbol-keyed internals (kNewListener, kHybridDispatch) too
const caught: MessagePort[] = [];
for (const proto of [EventTarget.prototype, MessagePort.prototype] as unknown as Record<PropertyKey, unknown>[]) {
  for (const key of Reflect.ownKeys(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (!d || typeof d.value !== 'function' || key === 'constructor' || !d.writable) continue;
    const fn = d.value as (...a: unknown[]) => unknown;
    proto[key] = function (this: unknown, ...a: unknown[]) {
      if (this instanceof MessagePort && !caught.includes(this)) caught.push(this);
      return fn.apply(this, a);
    };
  }
}

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
      for (const h of [...handles, ...caught]) if (h instanceof MessagePort) h.postMessage({ type: 'result', result: genuinePass, timelines: false });
    }
    // BUG: one replica short, for ever
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
    if (!rs || rs.status.observedGeneration === rs.metadata.generation) return;
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas - 1, observedGeneration: rs.metadata.generation } });
  },
});
