import { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { VirtualClock } from '../src/sim/clock.js';
import { ObjectStore } from '../src/store/store.js';
import { createKubeApi } from '../src/kube-rest/kube-api.js';
import { startLoopback } from '../src/kube-rest/loopback.js';
const store = new ObjectStore({ clock: new VirtualClock() });
const api = createKubeApi({ store });
const lb = await startLoopback(api);
const kc = new KubeConfig();
const text = lb.kubeconfig({ token: api.issueToken('controller:webapp/0') });
console.log(text);
kc.loadFromString(text);
const objects = KubernetesObjectApi.makeApiClient(kc);
try { console.log(await objects.list('v1', 'ConfigMap')); } catch (e) { console.log('ERR', e); }
await lb.close();
