/**
 * rt48, a real client-node 1.4 program: a Bundle (example.com/v1 `bundles`) lists entries; the
 * operator keeps a ConfigMap `<name>-bundle` holding exactly them. The correct one server-side
 * applies `data` under its field manager (force: it is the only writer of its keys), so an entry
 * dropped from the Bundle is removed by the API server (a key the manager applied before and leaves
 * out now), and reports `observedGeneration` + the key count by a status merge patch, only when they
 * differ.
 *
 * The buggy one JSON-merge-patches `data` with the entries: merge patch only adds and replaces,
 * so a key dropped from the Bundle stays in the ConfigMap forever (the classic "client-side apply
 * without last-applied" leak).
 */
import { CoreV1Api, CustomObjectsApi, KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';

interface Bundle extends KubernetesObject {
  spec?: { entries?: Record<string, string> };
  status?: { observedGeneration?: number; keys?: number };
}

const GROUP = 'example.com';
const VERSION = 'v1';
const PLURAL = 'bundles';
const MANAGER = 'bundle-operator';

export function main(mode: 'apply' | 'merge'): void {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const bundles = makeInformer<Bundle>(kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`, () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }) as never);
  const queue = new Set<string>();
  const backoff = new Map<string, number>();
  let running = false;

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    // the cache may lag (a deleted Bundle still shown): decide on the API server's copy
    let b: Bundle;
    try {
      b = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name })) as Bundle;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return;
      throw err;
    }
    if (b.metadata?.deletionTimestamp) return;
    const entries = b.spec?.entries ?? {};
    const cmName = `${name}-bundle`;
    const owner = { apiVersion: `${GROUP}/${VERSION}`, kind: 'Bundle', name, uid: b.metadata!.uid!, controller: true, blockOwnerDeletion: true };
    if (mode === 'apply') {
      const want: V1ConfigMap & KubernetesObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cmName, namespace, ownerReferences: [owner] }, data: entries };
      await objects.patch<V1ConfigMap & KubernetesObject>(want, undefined, undefined, MANAGER, true, PatchStrategy.ServerSideApply);
    } else {
      let live: V1ConfigMap | undefined;
      try {
        live = await core.readNamespacedConfigMap({ name: cmName, namespace });
      } catch (err) {
        if ((err as { code?: number }).code !== 404) throw err;
      }
      if (!live) await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: cmName, namespace, ownerReferences: [owner] }, data: entries } });
      else if (Object.entries(entries).some(([k, v]) => live!.data?.[k] !== v)) {
        // BUG: a merge patch never removes the keys the Bundle dropped
        await objects.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cmName, namespace }, data: entries } as KubernetesObject, undefined, undefined, MANAGER, undefined, PatchStrategy.MergePatch);
      }
    }
    const status = { observedGeneration: b.metadata!.generation!, keys: Object.keys(entries).length };
    if (b.status?.observedGeneration === status.observedGeneration && b.status?.keys === status.keys) return;
    // client-node 1.4 sends a JSON patch for a plain array body
    await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name, body: [{ op: 'add', path: '/status', value: status }] });
  }

  async function work(): Promise<void> {
    if (running) return;
    running = true;
    try {
      while (queue.size > 0) {
        const key = queue.values().next().value as string;
        queue.delete(key);
        try {
          await sync(key);
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
  const enqueue = (b: Bundle) => {
    queue.add(`${b.metadata!.namespace}/${b.metadata!.name}`);
    void work();
  };
  bundles.on('add', enqueue);
  bundles.on('update', enqueue);
  bundles.on('error', (err: unknown) => {
    console.error(`informer stopped: ${err instanceof Error ? err.message : String(err)}`);
    setTimeout(() => void bundles.start(), 2_000);
  });
  // resync, as controller-runtime's: a lost event, a drifted ConfigMap or a failed write is retried
  setInterval(() => {
    for (const b of bundles.list()) enqueue(b);
  }, 10_000);
  void bundles.start();
}
