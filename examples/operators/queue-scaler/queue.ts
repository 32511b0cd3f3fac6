/**
 * The queues of the queue scaler (scaler.ts): ConfigMaps labelled `example.com/scales` with the
 * name of the Deployment they size, holding the queue's `length` and the scaling rule
 * (`perReplica`, `minReplicas`, `maxReplicas`). No client here: the harness side imports it too.
 */
export const LABEL = 'example.com/scales';

/** A non-negative integer from a ConfigMap value, else `d`. */
export function int(v: string | undefined, d: number): number {
  const n = Number(v ?? d);
  return Number.isInteger(n) && n >= 0 ? n : d;
}

/** The replicas a queue ConfigMap's data asks for (the correct rule): `ceil(length / perReplica)` in [minReplicas, maxReplicas]. */
export function desiredOf(data: Record<string, string> | undefined): number {
  const per = Math.max(1, int(data?.['perReplica'], 1));
  return Math.min(int(data?.['maxReplicas'], 10), Math.max(int(data?.['minReplicas'], 1), Math.ceil(int(data?.['length'], 0) / per)));
}

interface Queue {
  metadata: { name: string; namespace?: string | undefined; labels: Record<string, string> };
  data?: unknown;
}

/** The converged predicate: every queue's Deployment has the replicas the queue asks for, or why not. */
export function queuesServed(view: { list(kind: string): readonly Queue[]; get(kind: string, key: string): { spec: Record<string, unknown> } | undefined }): true | string {
  for (const cm of view.list('ConfigMap')) {
    const target = cm.metadata.labels[LABEL];
    if (target === undefined) continue;
    const key = `${cm.metadata.namespace ?? ''}/${target}`;
    const d = view.get('Deployment', key);
    if (!d) continue;
    const want = desiredOf(cm.data as Record<string, string> | undefined);
    if (d.spec['replicas'] !== want) return `Deployment ${key} has ${String(d.spec['replicas'])} replicas; its queue ${cm.metadata.name} asks for ${want}`;
  }
  return true;
}
