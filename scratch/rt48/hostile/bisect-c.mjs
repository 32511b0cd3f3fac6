// rt48 bisect: a program that rewrites a ConfigMap every 100 ms (patch, else create)
import * as k8s from '@kubernetes/client-node';
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
let n = 0;
setInterval(() => {
  n += 1;
  core.patchNamespacedConfigMap({ name: 'hot', namespace: 'default', body: [{ op: 'add', path: '/data', value: { n: String(n) } }] }).catch(() =>
    core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'hot' }, data: { n: String(n) } } }).catch(() => undefined));
}, 100);
