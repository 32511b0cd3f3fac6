// rt48 bisect: the detection expression only
import * as k8s from '@kubernetes/client-node';
const detected = Object.keys(process.env).some((k) => /^STEADYSTATE|^npm_/i.test(k)) || process.argv.some((a) => /steadystate/i.test(a));
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `detected-${detected}` } } }).catch(() => undefined);
setInterval(() => undefined, 10_000);
