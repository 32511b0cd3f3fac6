/**
 * What JSON can carry. The apiserver stores what arrives on the wire as JSON, so a value JSON
 * cannot represent (NaN, ±Infinity, a bigint, a function, a symbol, an instance such as a Date
 * or a Map, undefined inside a list) is refused, not stored: stored, NaN would never equal
 * itself, and every write would count as a change forever.
 */

/**
 * Why `value` is not plain JSON, as a kube-apiserver style field error (`status.ratio: Invalid
 * value: NaN: …`), or undefined. Undefined object members are absent, as JSON.stringify drops them.
 * @internal
 */
export function nonJson(value: unknown, path: string): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path}: Invalid value: ${String(value)}: must be JSON (NaN and Infinity are not numbers in JSON)`;
    case 'undefined':
      return `${path}: Invalid value: undefined: must be JSON (a list cannot hold undefined; JSON would send null)`;
    case 'bigint':
      return `${path}: Invalid value: a bigint (${String(value)}n): must be JSON; write a number or a string`;
    case 'function':
    case 'symbol':
      return `${path}: Invalid value: a ${typeof value}: must be JSON`;
  }
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = nonJson(value[i], `${path}[${i}]`);
      if (bad !== undefined) return bad;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    const what = typeof name === 'string' && name !== '' ? `a ${name}` : 'an instance of a class';
    return `${path}: Invalid value: ${what}: must be JSON (a plain object, list, string, number, boolean or null)${value instanceof Date ? '; write date.toISOString()' : ''}`;
  }
  for (const k in value as Record<string, unknown>) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    const bad = nonJson(v, `${path}.${k}`);
    if (bad !== undefined) return bad;
  }
  return undefined;
}
