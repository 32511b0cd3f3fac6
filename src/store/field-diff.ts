import { jsonEqual } from './object.js';

/**
 * Field paths that differ between two versions of an object (`spec.replicas`,
 * `metadata.labels.app`). Paths stop at `maxDepth` segments, which is as precise as a
 * controller author needs to see which write changed what.
 * @internal
 */
export function changedPaths(before: unknown, after: unknown, maxDepth = 4, prefix = '', out: string[] = []): string[] {
  if (jsonEqual(before, after)) return out;
  const depth = prefix === '' ? 0 : prefix.split('.').length;
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
    if (k === 'resourceVersion' && prefix === 'metadata') continue;
    if (k === 'generation' && prefix === 'metadata') continue;
    if (!jsonEqual(b[k], a[k])) changedPaths(b[k], a[k], maxDepth, prefix === '' ? k : `${prefix}.${k}`, out);
  }
  return out;
}
