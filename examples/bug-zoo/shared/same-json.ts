/** Deep equality of JSON values, independent of key order: what "compare before writing" compares. */
export function sameJson(a: unknown, b: unknown): boolean {
  // plain JSON compares in place; anything else (a Date, a bigint) as its stable serialization
  return equal(a, b) ?? stableJson(a) === stableJson(b);
}

/** What JSON.stringify writes as null: null, undefined, NaN, ±Infinity. */
function nullish(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'number' && !Number.isFinite(v));
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `stableJson(a) === stableJson(b)` for plain JSON data, without building strings; undefined when a value is not plain JSON. */
function equal(a: unknown, b: unknown): boolean | undefined {
  if (nullish(a) || nullish(b)) return nullish(a) && nullish(b);
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'string' || ta === 'number' || ta === 'boolean') {
    if (tb === 'string' || tb === 'number' || tb === 'boolean') return a === b;
    return tb === 'object' ? false : undefined;
  }
  if (ta !== 'object' || (tb !== 'object' && tb !== 'string' && tb !== 'number' && tb !== 'boolean')) return undefined;
  if (tb !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return isPlain(b as object) ? false : undefined;
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const r = equal(a[i], b[i]);
      if (r !== true) return r;
    }
    return true;
  }
  if (!isPlain(a as object)) return undefined;
  if (Array.isArray(b)) return false;
  if (!isPlain(b as object)) return undefined;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let na = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    na++;
    if (bo[k] === undefined) return false;
    const r = equal(ao[k], bo[k]);
    if (r !== true) return r;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}

/** The value's JSON with sorted keys and undefined members dropped: what {@link sameJson} compares. */
export function stableJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return v === undefined ? 'null' : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(',')}}`;
}

/**
 * Whether `live` has every member `desired` names, with its value (objects by the members
 * `desired` names, recursively; arrays of the same length, item by item; scalars equal): what a
 * controller compares when the API server fills in what it left out (a built-in kind's defaults,
 * such as a Deployment's strategy or a container's imagePullPolicy), where {@link sameJson} would
 * differ on every reconcile.
 */
export function containsJson(live: unknown, desired: unknown): boolean {
  if (desired === null || typeof desired !== 'object') return live === desired;
  if (live === null || typeof live !== 'object' || Array.isArray(live) !== Array.isArray(desired)) return false;
  if (Array.isArray(desired)) return desired.length === (live as unknown[]).length && desired.every((d, i) => containsJson((live as unknown[])[i], d));
  return Object.entries(desired).every(([k, v]) => v === undefined || containsJson((live as Record<string, unknown>)[k], v));
}

/** The built-in kinds whose spec kube-apiserver defaults (see src/store/defaults.ts). */
export const SPEC_DEFAULTED_KINDS: ReadonlySet<string> = new Set(['Pod', 'Service', 'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'PersistentVolumeClaim', 'NetworkPolicy']);
