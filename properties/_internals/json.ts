/**
 * Small JSON helpers for judges. Kept here (not imported from store/) so properties depend on
 * the harness contract and plain data only.
 * @internal
 */

/** JSON with object keys sorted: equal values give equal strings. */
export function stable(value: unknown): string {
  if (value === null || typeof value !== 'object') return value === undefined ? 'null' : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stable(o[k])}`).join(',')}}`;
}

/** Structural equality of JSON data. */
export function jsonEq(a: unknown, b: unknown): boolean {
  return a === b || stable(a) === stable(b);
}

/** Value at a dotted path (`status.observedGeneration`), or undefined. */
export function at(value: unknown, path: string | readonly string[]): unknown {
  const parts = typeof path === 'string' ? (path === '' ? [] : path.split('.')) : path;
  let cur = value;
  for (const p of parts) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/** True for a plain object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** RFC 7386 merge patch (used to follow the user's spec through `patch` actions). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
