/**
 * What reaches the apiserver of an object a controller writes. A real client sends
 * `JSON.stringify(object)`: a Date arrives as its ISO string, an object with `toJSON` as what that
 * returns, an instance of a class (client-node's `V1Pod`) as its own fields, NaN as null. The
 * in-process client hands objects to the store without a wire, so it does what the wire would:
 * objects that are JSON already are copied as they are, others are serialized. What
 * `JSON.stringify` cannot send (a bigint, a cycle) throws in the reconcile, as the real client's
 * serializer would, before any request is made.
 * @internal
 */
export function wireForm<T>(value: T, what: string): T {
  // a fresh copy even of plain JSON: the store reads only data the caller can no longer reach (a
  // getter of the caller's object run inside the store's write window could edit the harness's
  // records and restore what it changed before anyone looks; red team H0, stop 43)
  const copy = plainCopy(value, 0);
  if (copy !== NOT_PLAIN) return copy as T;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(`steadystate: ${what} cannot be sent to the API server: JSON.stringify threw ${err instanceof Error ? err.message : String(err)}. A real client fails the same way before sending; write plain JSON (a number or string instead of a bigint, no cycles).`);
  }
  if (text === undefined) throw new TypeError(`steadystate: ${what} cannot be sent to the API server: it is not an object JSON can carry.`);
  return JSON.parse(text) as T;
}

const NOT_PLAIN = Symbol('not plain JSON');

/** A copy of `value` when JSON.stringify would send it unchanged (undefined object members dropped, as both do), else NOT_PLAIN. */
function plainCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : NOT_PLAIN;
    case 'object':
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return null;
  // a structure this deep is left to JSON.stringify, which also finds a cycle
  if (depth > 200) return NOT_PLAIN;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (v === undefined) return NOT_PLAIN;
      const c = plainCopy(v, depth + 1);
      if (c === NOT_PLAIN) return NOT_PLAIN;
      out[i] = c;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const k in value as Record<string, unknown>) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    const c = plainCopy(v, depth + 1);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    if (k === '__proto__') Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    else out[k] = c;
  }
  return out;
}
