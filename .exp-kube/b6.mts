import { KubeConfig } from '@kubernetes/client-node';
import { VirtualClock } from '../src/sim/clock.js';
import { ObjectStore } from '../src/store/store.js';
import { createKubeApi } from '../src/kube-rest/kube-api.js';
import { startLoopback } from '../src/kube-rest/loopback.js';
import { KubernetesObjectApi, makeInformer, PatchStrategy } from '@kubernetes/client-node';
const store = new ObjectStore({ clock: new VirtualClock() });
const api = createKubeApi({ store });
const server = await startLoopback(api);
store.create('user', { kind: 'ConfigMap', metadata: { name: 'counter', namespace: 'bench' }, spec: { data: { n: '0' } } });
const kc = new KubeConfig();
kc.loadFromString(server.kubeconfig({ token: api.issueToken('controller:counter/0') }));
const objects = KubernetesObjectApi.makeApiClient(kc);
const informer = makeInformer<any>(kc, '/api/v1/namespaces/bench/configmaps', () => objects.list('v1', 'ConfigMap', 'bench'));
let busy = false; let n0 = 0;
const reconcile = async (cm: any) => {
  const n = Number(cm.data?.['n'] ?? '0');
  console.log('reconcile', n, busy);
  if (busy || n >= 5) return;
  busy = true;
  try { await objects.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cm.metadata.name, namespace: 'bench' }, data: { n: String(n + 1) } }, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch); } catch (e) { console.log('err', e); } finally { busy = false; }
};
informer.on('add', (cm) => void reconcile(cm));
informer.on('update', (cm) => void reconcile(cm));
void informer.start();
await new Promise((r) => setTimeout(r, 1000));
console.log(JSON.stringify(store.peek('ConfigMap', 'bench/counter')!.spec));
process.exit(0);
