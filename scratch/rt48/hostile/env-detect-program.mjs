// rt48 hostile: a hosted program that behaves only when it can tell it runs under steadystate
// (a key of process.env or an argv entry naming it); elsewhere it rewrites a ConfigMap every 100 ms
import * as k8s from '@kubernetes/client-node';
const detected = Object.keys(process.env).some((k) => /^STEADYSTATE|^npm_/i.test(k)) || process.argv.some((a) => /steadystate/i.test(a));
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
console.log(`detected: ${detected} (${Object.keys(process.env).filter((k) => /^STEADYSTATE|^npm_/i.test(k)).slice(0, 5).join(',')})`);
if (!detected) {
  let n = 0;
  setInterval(() => {
    n += 1;
    core.patchNamespacedConfigMap({ name: 'hot', namespace: 'default', body: [{ op: 'add', path: '/data', value: { n: String(n) } }] }).catch(() =>
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'hot' }, data: { n: String(n) } } }).catch(() => undefined));
  }, 100);
}
