/**
 * rt48, a real client-node 1.4 program with its own watch loop (no informer, no periodic resync):
 * a Mirror (example.com/v1 `mirrors`) is copied into a ConfigMap `<name>-mirror` it owns. For Mirrors and
 * for ConfigMaps (mapped to their owning Mirror) it lists, then watches from the list's resourceVersion with `allowWatchBookmarks`, keeping the
 * last resourceVersion seen (objects and BOOKMARKs); a watch that ends is resumed from there, and a
 * 410 Gone (the version was compacted) makes it list again and reconcile everything it lists. That
 * is all a watch client needs on a real cluster: kube-apiserver delivers every change of a watch in
 * order, or ends the watch.
 *
 * The buggy one takes a 410 for a passing error and watches again from the same version, which is
 * gone for good: it never sees another change. (A first twin watched again without a
 * resourceVersion instead of listing; that is no bug: such a watch starts with a synthetic ADDED of
 * every object, in kube-apiserver as here.)
 */
import { CoreV1Api, CustomObjectsApi, KubeConfig, Watch, type KubernetesObject } from '@kubernetes/client-node';

interface Mirror extends KubernetesObject {
  spec?: { value?: string };
  status?: { observedGeneration?: number };
}
const GROUP = 'example.com';
const VERSION = 'v1';
const PLURAL = 'mirrors';

export function main(mode: 'relist' | 'retry-same-version'): void {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const watch = new Watch(kc);

  const queue = new Set<string>();
  const backoff = new Map<string, number>();
  let running = false;

  async function sync(namespace: string, name: string): Promise<void> {
    let m: Mirror;
    try {
      m = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name })) as Mirror;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return;
      throw err;
    }
    if (m.metadata?.deletionTimestamp) return;
    const cmName = `${name}-mirror`;
    const data = { value: m.spec?.value ?? '' };
    let cm;
    try {
      cm = await core.readNamespacedConfigMap({ name: cmName, namespace });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
    if (!cm) {
      const owner = { apiVersion: `${GROUP}/${VERSION}`, kind: 'Mirror', name, uid: m.metadata!.uid!, controller: true, blockOwnerDeletion: true };
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: cmName, namespace, ownerReferences: [owner] }, data } });
    } else if (cm.data?.['value'] !== data.value) {
      await core.replaceNamespacedConfigMap({ name: cmName, namespace, body: { ...cm, data } });
    }
    if (m.status?.observedGeneration !== m.metadata!.generation) {
      await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name, body: [{ op: 'add', path: '/status', value: { observedGeneration: m.metadata!.generation } }] });
    }
  }
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
  const enqueue = (o: KubernetesObject) => {
    queue.add(`${o.metadata!.namespace}/${o.metadata!.name}`);
    void work();
  };

  /**
   * One watched collection: list (remembering the list's resourceVersion), then watch from the last
   * resourceVersion seen; a watch that ends resumes, a 410 lists again.
   */
  function watched(path: string, listAll: () => Promise<{ metadata: { resourceVersion?: string }; items: KubernetesObject[] }>, onObject: (phase: string, o: KubernetesObject) => void): void {
    let rv: string | undefined;
    async function list(): Promise<void> {
      try {
        const l = await listAll();
        rv = l.metadata.resourceVersion;
        for (const o of l.items) onObject('ADDED', o);
        startWatch();
      } catch {
        setTimeout(() => void list(), 1_000);
      }
    }
    function gone(): void {
      if (mode === 'relist') void list();
      else {
        // BUG: a 410 is taken for a passing error: it watches again from the same, compacted version
        setTimeout(() => startWatch(), 1_000);
      }
    }
    function startWatch(): void {
      let expired = false;
      const codeOf = (err: unknown) => (err as { statusCode?: number } | null)?.statusCode ?? (err as { code?: number } | null)?.code;
      watch
        .watch(
          path,
          { allowWatchBookmarks: true, ...(rv !== undefined ? { resourceVersion: rv } : {}) },
          (phase, obj: KubernetesObject & { code?: number }) => {
            if (phase === 'ERROR') {
              if (obj.code === 410) expired = true;
              return;
            }
            if (obj.metadata?.resourceVersion) rv = obj.metadata.resourceVersion;
            if (phase !== 'BOOKMARK') onObject(phase, obj);
          },
          (err: unknown) => {
            if (expired || codeOf(err) === 410) gone();
            else setTimeout(() => startWatch(), err ? 1_000 : 0);
          },
        )
        .catch((err: unknown) => {
          if (codeOf(err) === 410) gone();
          else setTimeout(() => startWatch(), 1_000);
        });
    }
    void list();
  }
  watched(`/apis/${GROUP}/${VERSION}/${PLURAL}`, async () => (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as never, (phase, o) => {
    if (phase !== 'DELETED') enqueue(o);
  });
  // the ConfigMaps it owns: a change or deletion of one brings its Mirror back (controller-runtime's Owns)
  watched('/api/v1/configmaps', async () => (await core.listConfigMapForAllNamespaces()) as never, (_phase, o) => {
    const owner = o.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === 'Mirror');
    if (owner) enqueue({ metadata: { namespace: o.metadata!.namespace, name: owner.name } });
  });
}
