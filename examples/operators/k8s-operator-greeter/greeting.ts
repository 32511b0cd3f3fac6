/**
 * A Greeting operator written with a published framework, `@dot-i/k8s-operator` 1.3.9 (on
 * `@kubernetes/client-node` 0.20, `request` and `gaxios`), run unchanged: the framework is the
 * npm package itself, not a copy. A `Greeting` (example.com/v1) asks for a ConfigMap
 * `<name>-greeting` holding its message; the operator reports `status.message` and
 * `status.observedGeneration`.
 *
 * The package is CommonJS with `exports.default`: from an ES module its class is `.default`,
 * as Node hands a CommonJS module's `module.exports` to a default import.
 */
import framework, { ResourceEventType, type ResourceEvent, type ResourceMeta } from '@dot-i/k8s-operator';

export const Operator = framework.default;
export { ResourceEventType, type ResourceEvent, type ResourceMeta };

export interface Greeting {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string; generation?: number; resourceVersion?: string; deletionTimestamp?: string };
  spec: { message: string };
}

/** The ConfigMap a Greeting asks for. */
export function configMapOf(g: Greeting) {
  return {
    metadata: {
      name: `${g.metadata.name}-greeting`,
      namespace: g.metadata.namespace,
      ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Greeting', name: g.metadata.name, uid: g.metadata.uid, controller: true }],
    },
    data: { message: g.spec.message },
  };
}

/** The HTTP status of a client-node 0.x error (`HttpError.statusCode`), if any. */
export const statusOf = (err: unknown): number | undefined => (err as { statusCode?: number } | null)?.statusCode;

/** What {@link ensureConfigMap} needs of client-node 0.20's `CoreV1Api` (the framework's `k8sApi`). */
export interface ConfigMapApi {
  readNamespacedConfigMap(name: string, namespace: string): Promise<{ body: { data?: Record<string, string> } }>;
  replaceNamespacedConfigMap(name: string, namespace: string, body: object): Promise<unknown>;
  createNamespacedConfigMap(namespace: string, body: object): Promise<unknown>;
}

/** Makes the Greeting's ConfigMap hold its message: read, then replace if it differs, or create on 404. */
export async function ensureConfigMap(api: ConfigMapApi, g: Greeting): Promise<void> {
  const want = configMapOf(g);
  try {
    const { body: cm } = await api.readNamespacedConfigMap(want.metadata.name, want.metadata.namespace);
    if (cm.data?.['message'] !== g.spec.message) await api.replaceNamespacedConfigMap(want.metadata.name, want.metadata.namespace, { ...cm, data: want.data });
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
    await api.createNamespacedConfigMap(want.metadata.namespace, want);
  }
}
