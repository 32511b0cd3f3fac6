// rt48: a benign hosted program (does nothing but load its client), to isolate the worker exit
import * as k8s from '@kubernetes/client-node';
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
setInterval(() => undefined, 10_000);
