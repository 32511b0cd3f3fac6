/** CLI fixture: the correct controller of level.ts, saying at load which thread loaded it. */
import { isMainThread } from 'node:worker_threads';
import type { CheckOptions } from '../../../src/harness/check-options.js';
export { levelTriggered } from '../../../examples/replicas/level-triggered.js';
export const checkOptions: CheckOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 3 }, { replicas: 1 }], status: { replicas: 0 } } };
process.stderr.write(`where-loaded: ${isMainThread ? 'main thread' : 'worker thread'}\n`);
