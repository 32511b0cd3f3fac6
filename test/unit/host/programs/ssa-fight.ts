/**
 * Host fixture: one program, two server-side apply field managers that both want to own a
 * Deployment's spec.replicas (an autoscaler wanting 3, a GitOps sync wanting 2), each applying with
 * `force: true` as controllers do whenever the Deployment it sees differs. Each apply takes the
 * field from the other manager, whose informer event brings its apply back: a fight for ever.
 * With HANDOFF=1 the sync gives way after its third apply (a handoff: the field changes hands a
 * few times, then stays the autoscaler's).
 */
import { KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, type KubernetesObject, type V1Deployment } from '@kubernetes/client-node';

type Deployment = V1Deployment & KubernetesObject;
const kc = new KubeConfig();
kc.loadFromDefault();
const objects = KubernetesObjectApi.makeApiClient(kc);
const handoff = process.env['HANDOFF'] === '1';
let syncApplies = 0;

async function applyReplicas(d: Deployment, manager: string, replicas: number): Promise<void> {
  const { name, namespace } = d.metadata as { name: string; namespace: string };
  const body: Deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace }, spec: { replicas } as NonNullable<V1Deployment['spec']> };
  try {
    await objects.patch<Deployment>(body, undefined, undefined, manager, true, PatchStrategy.ServerSideApply);
  } catch (err) {
    console.error(`${manager}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
}

function onDeployment(d: Deployment): void {
  if (d.metadata?.deletionTimestamp !== undefined) return;
  const replicas = d.spec?.replicas;
  if (replicas !== 3) void applyReplicas(d, 'autoscaler', 3);
  else if (!handoff || syncApplies < 3) {
    syncApplies++;
    void applyReplicas(d, 'gitops-sync', 2);
  }
}

const informer = makeInformer<Deployment>(kc, '/apis/apps/v1/deployments', () => objects.list<Deployment>('apps/v1', 'Deployment'));
informer.on('add', onDeployment);
informer.on('update', onDeployment);
informer.on('error', () => setTimeout(() => void informer.start(), 5_000));
void informer.start();
