/**
 * What reaches the apiserver of an object a controller writes. A real client sends
 * `JSON.stringify(object)`: a Date arrives as its ISO string, an object with `toJSON` as what that
 * returns, an instance of a class (client-node's `V1Pod`) as its own fields, NaN as null. The
 * in-process client hands objects to the store without a wire, so it does what the wire would:
 * objects that are JSON already pass as they are (no copy), others are serialized. What
 * `JSON.stringify` cannot send (a bigint, a cycle) throws in the reconcile, as the real client's
 * serializer would, before any request is made.
 * @internal
 */
export function wireForm<T>(value: T, what: string): T {
  if (isWireJson(value, 0)) return value;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(`steadystate: ${what} cannot be sent to the API server: JSON.stringify threw ${err instanceof Error ? err.message : String(err)}. A real client fails the same way before sending; write plain JSON (a number or string instead of a bigint, no cycles).`);
  }
  if (text === undefined) throw new TypeError(`steadystate: ${what} cannot be sent to the API server: it is not an object JSON can carry.`);
  return JSON.parse(text) as T;
}

/** The value is sent unchanged by JSON.stringify (undefined object members are dropped by both). */
function isWireJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  // a structure this deep is left to JSON.stringify, which also finds a cycle
  if (depth > 200) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (v === undefined || !isWireJson(v, depth + 1)) return false;
    }
    return true;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in value as Record<string, unknown>) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined && !isWireJson(v, depth + 1)) return false;
  }
  return true;
}
