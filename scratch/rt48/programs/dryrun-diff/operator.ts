/**
 * rt48, a real client-node 1.4 program: an Exposure (example.com/v1 `exposures`) asks for a
 * ClusterIP Service of its app. To compare what it wants with a live Service the API server has
 * defaulted (clusterIP, ipFamilies, sessionAffinity, port protocol, …), the correct operator asks
 * the API server: it PUTs its desired Service with `dryRun=All` (kubectl diff's way; nothing is
 * persisted, no event, no resourceVersion bump) and writes for real only when the dry-run answer
 * differs from the live spec. In steady state it makes no write at all.
 *
 * The buggy one left `dryRun: 'All'` on its real write too (a debugging flag never removed): it
 * never changes a Service once created.
 */
import { CoreV1Api, CustomObjectsApi, KubeConfig, makeInformer, type KubernetesObject, type V1Service } from '@kubernetes/client-node';

interface Exposure extends KubernetesObject {
  spec?: { app: string; port: number; targetPort: number };
  status?: { clusterIP?: string; observedGeneration?: number };
}
const GROUP = 'example.com';
const VERSION = 'v1';
const PLURAL = 'exposures';

export function main(mode: 'diff' | 'always-dry'): void {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const exposures = makeInformer<Exposure>(kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`, () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }) as never);

  async function sync(namespace: string, name: string): Promise<void> {
    let e: Exposure;
    try {
      e = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name })) as Exposure;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return;
      throw err;
    }
    if (e.metadata?.deletionTimestamp) return;
    const owner = { apiVersion: `${GROUP}/${VERSION}`, kind: 'Exposure', name, uid: e.metadata!.uid!, controller: true, blockOwnerDeletion: true };
    const ports = [{ name: 'http', port: e.spec!.port, targetPort: e.spec!.targetPort as never, protocol: 'TCP' }];
    let svc: V1Service | undefined;
    try {
      svc = await core.readNamespacedService({ name, namespace });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
    if (!svc) svc = await core.createNamespacedService({ namespace, body: { metadata: { name, namespace, ownerReferences: [owner] }, spec: { selector: { app: e.spec!.app }, ports } } });
    else {
      const want: V1Service = { ...svc, spec: { ...svc.spec, selector: { app: e.spec!.app }, ports } };
      // the API server's own view of what that would store (defaults filled in), persisted nowhere
      const dry = await core.replaceNamespacedService({ name, namespace, body: want, dryRun: 'All' });
      if (JSON.stringify(dry.spec) !== JSON.stringify(svc.spec)) {
        svc = await core.replaceNamespacedService({ name, namespace, body: want, ...(mode === 'always-dry' ? { dryRun: 'All' } : {}) });
      }
    }
    const status = { clusterIP: svc.spec?.clusterIP ?? '', observedGeneration: e.metadata!.generation! };
    if (e.status?.clusterIP === status.clusterIP && e.status?.observedGeneration === status.observedGeneration) return;
    await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name, body: [{ op: 'add', path: '/status', value: status }] });
  }

  const queue = new Set<string>();
  const backoff = new Map<string, number>();
  let running = false;
  async function work(): Promise<void> {
    if (running) return;
    running = true;
    try {
      while (queue.size > 0) {
        const key = queue.values().next().value as string;
        queue.delete(key);
        const [namespace, name] = key.split('/') as [string, string];
        try {
          await sync(namespace, name);
          backoff.delete(key);
        } catch (err) {
          const delay = Math.min((backoff.get(key) ?? 100) * 2, 30_000);
          backoff.set(key, delay);
          console.error(`sync ${key} failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); retry in ${delay} ms`);
          setTimeout(() => {
            queue.add(key);
            void work();
          }, delay);
        }
      }
    } finally {
      running = false;
    }
  }
  const enqueue = (e: Exposure) => {
    queue.add(`${e.metadata!.namespace}/${e.metadata!.name}`);
    void work();
  };
  exposures.on('add', enqueue);
  exposures.on('update', enqueue);
  exposures.on('error', () => setTimeout(() => void exposures.start(), 2_000));
  setInterval(() => {
    for (const e of exposures.list()) enqueue(e);
  }, 10_000);
  void exposures.start();
}
