
/**
 * rt48, a real client-node 1.4 program written as CommonJS (`require`, no ESM syntax): a Census
 * (example.com/v1 `censuses`) counts the Pods of its namespace its label selector matches, into
 * status.count (+ observedGeneration). The correct one lists them in pages of 2 (limit +
 * continue, as client-go's pager does for big lists) and follows `metadata.continue` to the end;
 * it recounts on every Census event and every 5 s, and writes status only when it changed.
 *
 * The buggy one reads the first page only (it forgot the continue token): with more than two
 * matching Pods its count stops at 2.
 */
import * as k8s from '@kubernetes/client-node';

const GROUP = 'example.com';
const VERSION = 'v1';
const PLURAL = 'censuses';
const mode = process.argv[2] === 'first-page' ? 'first-page' : 'paged';

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const censuses = k8s.makeInformer(kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`, () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }));

async function count(namespace, labelSelector) {
  let n = 0;
  let token;
  do {
    const page = await core.listNamespacedPod({ namespace, labelSelector, limit: 2, _continue: token });
    n += page.items.filter((p) => !p.metadata.deletionTimestamp).length;
    token = mode === 'paged' ? page.metadata && page.metadata._continue : undefined;
  } while (token);
  return n;
}

async function sync(namespace, name) {
  let c;
  try {
    c = await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name });
  } catch (err) {
    if (err && err.code === 404) return;
    throw err;
  }
  if (c.metadata.deletionTimestamp) return;
  const n = await count(namespace, (c.spec && c.spec.selector) || '');
  const status = { observedGeneration: c.metadata.generation, count: n };
  if (c.status && c.status.count === n && c.status.observedGeneration === status.observedGeneration) return;
  await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name, body: [{ op: 'add', path: '/status', value: status }] });
}

const queue = new Set();
const failures = new Map();
let running = false;
async function work() {
  if (running) return;
  running = true;
  try {
    while (queue.size > 0) {
      const key = queue.values().next().value;
      queue.delete(key);
      const [namespace, name] = key.split('/');
      try {
        await sync(namespace, name);
        failures.delete(key);
      } catch (err) {
        const delay = Math.min((failures.get(key) || 100) * 2, 20000);
        failures.set(key, delay);
        console.error(`census ${key}: ${err && err.message ? String(err.message).split('\n')[0] : String(err)}; retry in ${delay} ms`);
        setTimeout(() => {
          queue.add(key);
          work();
        }, delay);
      }
    }
  } finally {
    running = false;
  }
}
function enqueue(c) {
  queue.add(`${c.metadata.namespace}/${c.metadata.name}`);
  work();
}
censuses.on('add', enqueue);
censuses.on('update', enqueue);
censuses.on('error', (err) => {
  console.error(`informer stopped: ${err && err.message}`);
  setTimeout(() => censuses.start(), 2000);
});
// Pods are not watched: a recount every 5 s follows them
setInterval(() => censuses.list().forEach(enqueue), 5000);
censuses.start();
