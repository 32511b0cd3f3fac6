// rt48 bisect f: env-detect with detection forced off
// (a key of process.env or an argv entry naming it); elsewhere it rewrites a ConfigMap every 100 ms
import * as k8s from '@kubernetes/client-node';
const detected = false;
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
console.log(`detected: ${detected} ();
if (!detected) {
  let n = 0;
  setInterval(() => {
    n += 1;
    core.patchNamespacedConfigMap({ name: 'hot', namespace: 'default', body: [{ op: 'add', path: '/data', value: { n: String(n) } }] }).catch(() =>
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'hot' }, data: { n: String(n) } } }).catch(() => undefined));
  }, 100);
}
