// rt48 bisect: only console.log at the top level
import * as k8s from '@kubernetes/client-node';
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
console.log('started');
core.listNamespacedConfigMap({ namespace: 'default' }).catch(() => undefined);
setInterval(() => undefined, 10_000);
