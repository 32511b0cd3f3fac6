// rt48 hostile probe: can a hosted program see STEADYSTATE_* in its environment or steadystate in its argv?
// When it can, it hot-loops (so a failing check says "it saw the harness"); when it cannot, it acts once
import * as k8s from '@kubernetes/client-node';
const seen = Object.keys(process.env).filter((k) => /^STEADYSTATE/i.test(k)).concat(process.argv.filter((a) => /steadystate/i.test(a)));
// the first thing seen, in the ConfigMap's name (reports name the object)
const name = `probe-${(seen[0] ?? 'nothing').toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(-40).replace(/^-+|-+$/g, '')}`;
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
let n = 0;
const write = () => {
  n += 1;
  const data = { seen: seen.join(' ').slice(0, 200), n: String(seen.length > 0 ? n : 1) };
  core.replaceNamespacedConfigMap({ name, namespace: 'default', body: { metadata: { name }, data } }).catch(() =>
    core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data } }).catch(() => undefined));
};
write();
setInterval(() => (seen.length > 0 ? write() : undefined), 100);
