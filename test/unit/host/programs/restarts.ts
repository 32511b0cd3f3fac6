/**
 * Host fixture: module state that a restart must rebuild. Each incarnation counts its module
 * evaluations in a module-level variable (fresh per incarnation) and in a global (which survives
 * only if the module were not re-evaluated), writes what it saw, then ends itself in the way
 * EXIT_HOW says after a second.
 */
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

const g = globalThis as { __steadystateLoads?: number };
g.__steadystateLoads = (g.__steadystateLoads ?? 0) + 1;
let moduleLoads = 0;
moduleLoads++;
const kc = new KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(CoreV1Api);
const name = `load-${g.__steadystateLoads}`;
await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data: { moduleLoads: String(moduleLoads), at: new Date().toISOString() } } });
console.log(`wrote ${name}`);

setTimeout(() => {
  const how = process.env['EXIT_HOW'] ?? 'exit';
  if (how === 'exit') process.exit(3);
  if (how === 'throw') throw new Error('thrown from a timer');
  if (how === 'reject') void Promise.reject(new Error('nobody handles this'));
}, 1_000);
