import { jsonEqual } from './object.js';

/**
 * Field paths that differ between two versions of an object (`spec.replicas`,
 * `metadata.labels.app`). Paths stop at `maxDepth` segments, which is as precise as a
 * controller author needs to see which write changed what. Depth counts segments, not dots, so
 * a key such as `app.kubernetes.io/name` is one segment.
 * @internal
 */
export function changedPaths(before: unknown, after: unknown, maxDepth = 4, prefix = '', out: string[] = [], depth = prefix === '' ? 0 : prefix.split('.').length): string[] {
  if (!jsonEqual(before, after)) collect(before, after, maxDepth, prefix, out, depth);
  return out;
}

/**
 * The paths of two values known to differ. It runs on every store write, so it allocates only
 * for what differs: the differing keys of a level, sorted (the order the paths are reported in).
 */
function collect(before: unknown, after: unknown, maxDepth: number, prefix: string, out: string[], depth: number): void {
  if (
    depth >= maxDepth ||
    before === null || after === null ||
    typeof before !== 'object' || typeof after !== 'object' ||
    Array.isArray(before) || Array.isArray(after)
  ) {
    out.push(prefix === '' ? '.' : prefix);
    return;
  }
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const versionKeys = depth === 1 && prefix === 'metadata';
  // one differing key (the usual write: status.x) needs no list
  let first: string | undefined;
  let differing: string[] | undefined;
  for (const k in b) {
    if (versionKeys && (k === 'resourceVersion' || k === 'generation')) continue;
    if (jsonEqual(b[k], a[k])) continue;
    if (first === undefined) first = k;
    else (differing ??= [first]).push(k);
  }
  for (const k in a) {
    if (Object.prototype.hasOwnProperty.call(b, k) || (versionKeys && (k === 'resourceVersion' || k === 'generation'))) continue;
    if (jsonEqual(undefined, a[k])) continue;
    if (first === undefined) first = k;
    else (differing ??= [first]).push(k);
  }
  if (first === undefined) return;
  if (differing === undefined) {
    collect(b[first], a[first], maxDepth, prefix === '' ? first : `${prefix}.${first}`, out, depth + 1);
    return;
  }
  differing.sort();
  for (const k of differing) collect(b[k], a[k], maxDepth, prefix === '' ? k : `${prefix}.${k}`, out, depth + 1);
}
