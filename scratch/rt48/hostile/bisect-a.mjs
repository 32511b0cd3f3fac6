// rt48 bisect: only the env enumeration
import * as k8s from '@kubernetes/client-node';
const keys = Object.keys(process.env).length;
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
core.listNamespacedConfigMap({ namespace: 'default' }).catch(() => undefined);
setInterval(() => undefined, 10_000);
void keys;
