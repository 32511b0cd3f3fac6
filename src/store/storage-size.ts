import { isBuiltin } from './key-order.js';
import type { StoredObject } from './object.js';
import { StoreError } from './errors.js';

/*
 * How big an object is in etcd, for etcd's request size limit. kube-apiserver stores a custom
 * resource as JSON and a built-in kind as protobuf; one etcd request carries the whole object, and
 * etcd refuses one over `--max-request-bytes` (1.5 MiB by default) with "etcdserver: request is
 * too large", which kube-apiserver passes on as a 500 (kubernetes/kubernetes#74600, #112152: an
 * Endpoints object that grew too big, 5xx on every update).
 *
 * Sizes never overestimate, so the store never refuses what a real one stores: a custom
 * resource counts as its JSON (the stored JSON also holds managedFields and the etcd key: more),
 * a built-in kind only as the bytes of its strings (protobuf carries each string's bytes, Secret
 * data and binaryData decoded). resourceVersion and generation are left out (they are set after
 * the check, and a size that changed with the digits of a version would make a stamp look like growth).
 */

/** etcd's default `--max-request-bytes` (embed.DefaultMaxRequestBytes: 1.5 MiB). @internal */
export const ETCD_REQUEST_LIMIT = 1.5 * 1024 * 1024;

/**
 * 500 from kube-apiserver when etcd refuses the write: the object is over etcd's request size
 * limit. kube-apiserver sends etcd's words as they are (a `Status` with no reason). @public
 */
export class RequestTooLargeError extends StoreError {
  /** The object's size as counted (a lower bound of what etcd would be sent), and the limit. */
  readonly size: number;
  readonly limit: number;
  constructor(size: number, limit: number) {
    super('InternalError', 500, 'etcdserver: request is too large');
    this.size = size;
    this.limit = limit;
  }
}

/**
 * Sizes of objects (tests' and other callers' of {@link storedSize}) and of big parts (both
 * immutable once stored), by identity. The store keeps its objects' sizes itself (per key,
 * {@link objectSize}): an entry in a WeakMap for every stored version cost a tenth of a
 * write-heavy simulation (V8 gives each new object an identity hash, and the table grows).
 */
const objectSizes = new WeakMap<object, number>();
const partSizes = new WeakMap<object, number>();
/**
 * A part is cached only from this size up: walking a smaller one again costs less than the
 * WeakMap entry would (a status of a few fields, written on every reconcile).
 */
const PART_CACHE_MIN = 256;

/**
 * The size of `o` as etcd would store it (never more; see above). With `stored`, the version `o`
 * replaces, parts that are the stored one's (the spec of a status write) are not walked again:
 * the cost of a write is that of what it sends.
 * @internal
 */
export function storedSize(o: StoredObject, stored?: StoredObject): number {
  const known = objectSizes.get(o);
  if (known !== undefined) return known;
  const before = stored === undefined ? undefined : objectSizes.get(stored);
  const size = objectSize(o, stored, before);
  objectSizes.set(o, size);
  return size;
}

/**
 * {@link storedSize} without the cache by identity: with `before`, the size of `stored`, only the
 * members of `o` that are not `stored`'s very own are walked (sizes add up member by member).
 * @internal
 */
export function objectSize(o: StoredObject, stored?: StoredObject, before?: number): number {
  const json = !isBuiltin(o.kind, o.apiVersion);
  if (before !== undefined && stored !== undefined && stored.kind === o.kind && stored.apiVersion === o.apiVersion) return before + delta(o, stored, json);
  return topSize(o, json);
}

/** Throws {@link RequestTooLargeError} when `size` is over etcd's limit. @internal */
export function refuseTooLarge(size: number): void {
  if (size > ETCD_REQUEST_LIMIT) throw new RequestTooLargeError(size, ETCD_REQUEST_LIMIT);
}

function topSize(o: StoredObject, json: boolean): number {
  const top = o as unknown as Record<string, unknown>;
  let n = json ? 2 : 0;
  for (const k in top) n += memberSize(top, k, json, o.kind);
  return n;
}

/** Size of `o` minus that of `stored`, walking only the members that are not the very same value. */
function delta(o: StoredObject, stored: StoredObject, json: boolean): number {
  const a = o as unknown as Record<string, unknown>;
  const b = stored as unknown as Record<string, unknown>;
  let d = 0;
  for (const k in a) if (a[k] !== b[k]) d += memberSize(a, k, json, o.kind);
  for (const k in b) if (a[k] !== b[k]) d -= memberSize(b, k, json, o.kind);
  return d;
}

function memberSize(top: Record<string, unknown>, k: string, json: boolean, kind: string): number {
  const v = top[k];
  if (v === undefined) return 0;
  const key = json ? keySize(k) : 0;
  if (k === 'metadata' && v !== null && typeof v === 'object') return key + metadataSize(v as Record<string, unknown>, json);
  // protobuf carries Secret data and ConfigMap binaryData decoded: base64 is 4 characters per 3 bytes
  if (!json && (k === 'binaryData' || (k === 'data' && kind === 'Secret'))) return Math.floor((partSize(v, false) * 3) / 4);
  return key + partSize(v, json);
}

function metadataSize(m: Record<string, unknown>, json: boolean): number {
  let n = json ? 2 : 0;
  for (const k in m) {
    if (k === 'resourceVersion' || k === 'generation') continue;
    const v = m[k];
    if (v === undefined) continue;
    n += (json ? keySize(k) : 0) + partSize(v, json);
  }
  return n;
}

/** The size of a part (a big one cached by identity: {@link PART_CACHE_MIN}). */
function partSize(v: unknown, json: boolean): number {
  if (v === null || typeof v !== 'object') return valueSize(v, json);
  // the two measures are cached apart: a kind is one or the other, never both
  const cache = json ? partSizes : stringSizes;
  const known = cache.get(v);
  if (known !== undefined) return known;
  const n = valueSize(v, json);
  if (n >= PART_CACHE_MIN) cache.set(v, n);
  return n;
}
const stringSizes = new WeakMap<object, number>();

/** `"key":` (the commas between members are counted by the object; the top level's and metadata's are left out: a few bytes less). */
function keySize(k: string): number {
  return stringSize(k, true) + 1;
}

function valueSize(v: unknown, json: boolean): number {
  switch (typeof v) {
    case 'string':
      return stringSize(v, json);
    case 'number':
      return json ? numberSize(v) : 0;
    case 'boolean':
      return json ? (v ? 4 : 5) : 0;
    case 'object':
      break;
    default:
      return 0;
  }
  if (v === null) return json ? 4 : 0;
  if (Array.isArray(v)) {
    let n = json ? 2 + Math.max(0, v.length - 1) : 0;
    for (let i = 0; i < v.length; i++) n += valueSize(v[i], json);
    return n;
  }
  const o = v as Record<string, unknown>;
  let n = 0;
  let members = 0;
  for (const k in o) {
    const x = o[k];
    if (x === undefined) continue;
    members++;
    n += (json ? keySize(k) : 0) + valueSize(x, json);
  }
  return json ? n + 1 + Math.max(1, members) : n;
}

/** UTF-8 bytes of `s`, with its quotes and JSON escapes when `json`. */
function stringSize(s: string, json: boolean): number {
  let n = s.length + (json ? 2 : 0);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
    else if (json && (c < 0x20 || c === 34 || c === 92)) n += c < 0x20 && c !== 10 && c !== 9 && c !== 13 && c !== 8 && c !== 12 ? 5 : 1;
  }
  return n;
}

function numberSize(v: number): number {
  if (Number.isSafeInteger(v) && v >= 0 && v < 1e9) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 1e4 ? 4 : v < 1e5 ? 5 : v < 1e6 ? 6 : v < 1e7 ? 7 : v < 1e8 ? 8 : 9;
  return String(v).length;
}
