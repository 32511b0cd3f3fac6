/**
 * The copier that retries a failed copy with backoff, from the Secret as it is by then (and
 * gives up on a namespace that went away).
 */
import type { V1Secret } from '@kubernetes/client-node';
import { copyTo, main, type Caches } from './copier.js';

function retrying(source: V1Secret, namespace: string, caches: Caches, delay = 500): void {
  copyTo(source, namespace).catch((err: unknown) => {
    const c = (err as { code?: unknown } | null)?.code;
    console.error(`copy of ${source.metadata?.name} to ${namespace} failed (${String(c ?? (err instanceof Error ? err.message : err))}); retrying in ${delay} ms`);
    setTimeout(() => {
      const now = caches.source(source.metadata!.namespace!, source.metadata!.name!);
      if (now && caches.namespaceExists(namespace)) retrying(now, namespace, caches, Math.min(delay * 2, 30_000));
    }, delay);
  });
}

main((source, namespace, caches) => retrying(source, namespace, caches));
