import { jsonEqual } from './object.js';

/**
 * Field paths that differ between two versions of an object (`spec.replicas`,
 * `metadata.labels.app`). Paths stop at `maxDepth` segments, which is as precise as a
 * controller author needs to see which write changed what. Depth counts segments, not dots, so
 * a key such as `app.kubernetes.io/name` is one segment.
 * @internal
 */
export function changedPaths(before: unknown, after: unknown, maxDepth = 4, prefix = '', out?: string[], depth = prefix === '' ? 0 : prefix.split('.').length): string[] {
  // the list is made by its first path as a literal (a list grown by push from [] reserves 16 slots, and the trace keeps it)
  const found = jsonEqual(before, after) ? out : collect(before, after, maxDepth, prefix, out, depth);
  return found ?? [];
}

/**
 * The paths of two values known to differ. It runs on every store write, so it allocates only
 * for what differs: the differing keys of a level, sorted (the order the paths are reported in).
 */
function collect(before: unknown, after: unknown, maxDepth: number, prefix: string, out: string[] | undefined, depth: number): string[] | undefined {
  if (
    depth >= maxDepth ||
    before === null || after === null ||
    typeof before !== 'object' || typeof after !== 'object' ||
    Array.isArray(before) || Array.isArray(after)
  ) {
    const path = prefix === '' ? '.' : prefix;
    if (out === undefined) return [path];
    out.push(path);
    return out;
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
  if (first === undefined) return out;
  if (differing === undefined) return collect(b[first], a[first], maxDepth, prefix === '' ? first : joined(prefix, first), out, depth + 1);
  differing.sort();
  for (const k of differing) out = collect(b[k], a[k], maxDepth, prefix === '' ? k : joined(prefix, k), out, depth + 1);
  return out;
}

/** Paths made so far, by prefix and key: the same path (`status.lastSyncTime`) on every write is one string, not a new one the trace keeps each time. */
const paths = new Map<string, Map<string, string>>();
let pathCount = 0;
/** Paths kept at most (a world of generated keys must not grow the table without bound). */
const MAX_PATHS = 4096;

/** `${prefix}.${key}`, made once. */
function joined(prefix: string, key: string): string {
  let byKey = paths.get(prefix);
  const known = byKey?.get(key);
  if (known !== undefined) return known;
  const path = `${prefix}.${key}`;
  if (pathCount < MAX_PATHS) {
    if (byKey === undefined) paths.set(prefix, (byKey = new Map()));
    byKey.set(key, path);
    pathCount++;
  }
  return path;
}
