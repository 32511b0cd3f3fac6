// rt48 bisect e: env-detect without the console.log
// (a key of process.env or an argv entry naming it); elsewhere it rewrites a ConfigMap every 100 ms
import * as k8s from '@kubernetes/client-node';
const detected = Object.keys(process.env).some((k) => /^STEADYSTATE|^npm_/i.test(k)) || process.argv.some((a) => /steadystate/i.test(a));
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
if (!detected) {
  let n = 0;
  setInterval(() => {
    n += 1;
    core.patchNamespacedConfigMap({ name: 'hot', namespace: 'default', body: [{ op: 'add', path: '/data', value: { n: String(n) } }] }).catch(() =>
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'hot' }, data: { n: String(n) } } }).catch(() => undefined));
  }, 100);
}
