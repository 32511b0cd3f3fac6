import { jsonEqual } from './object.js';

/**
 * Field paths that differ between two versions of an object (`spec.replicas`,
 * `metadata.labels.app`). Paths stop at `maxDepth` segments, which is as precise as a
 * controller author needs to see which write changed what. Depth counts segments, not dots, so
 * a key such as `app.kubernetes.io/name` is one segment.
 * @internal
 */
export function changedPaths(before: unknown, after: unknown, maxDepth = 4, prefix = '', out: string[] = [], depth = prefix === '' ? 0 : prefix.split('.').length): string[] {
  if (jsonEqual(before, after)) return out;
  if (
    depth >= maxDepth ||
    before === null || after === null ||
    typeof before !== 'object' || typeof after !== 'object' ||
    Array.isArray(before) || Array.isArray(after)
  ) {
    out.push(prefix === '' ? '.' : prefix);
    return out;
  }
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const keys = new Set([...Object.keys(b), ...Object.keys(a)]);
  for (const k of [...keys].sort()) {
    if (depth === 1 && prefix === 'metadata' && (k === 'resourceVersion' || k === 'generation')) continue;
    if (!jsonEqual(b[k], a[k])) changedPaths(b[k], a[k], maxDepth, prefix === '' ? k : `${prefix}.${k}`, out, depth + 1);
  }
  return out;
}
