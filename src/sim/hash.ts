/**
 * FNV-1a 32-bit over a string, returned as 8 hex digits. Used for trace hashes: stable across
 * runs and Node versions, cheap enough to run on every trace.
 * @internal
 */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  // in int32 throughout (xor and Math.imul are the same bits mod 2^32), unsigned once at the end
  let h = seed | 0;
  const n = text.length;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Two hex digits of every byte: {@link hex8} runs on every store write (digests), and `toString(16)` plus `padStart` cost it 20 times as much. */
const HEX2: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** 8 lower-case hex digits of a 32-bit unsigned integer (`(n >>> 0).toString(16).padStart(8, '0')`). */
export function hex8(n: number): string {
  const u = n >>> 0;
  return HEX2[u >>> 24]! + HEX2[(u >>> 16) & 255]! + HEX2[(u >>> 8) & 255]! + HEX2[u & 255]!;
}

/** JSON with object keys sorted, so equal values always serialize to equal strings. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return value === undefined ? 'null' : JSON.stringify(value);
  }
  // built by appending, with no key list filtered, mapped and joined per object (the result is
  // the same as `'[' + value.map(stableStringify).join(',') + ']'`, holes and all)
  if (Array.isArray(value)) {
    let s = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) s += ',';
      if (!(i in value)) continue;
      const x = stableStringify(value[i]) as string | undefined; // undefined for a function or symbol, which join leaves empty
      if (x !== undefined) s += x;
    }
    return s + ']';
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  // most objects come with their keys in order already: sort only those that do not
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      keys.sort();
      break;
    }
  }
  let s = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (!first) s += ',';
    first = false;
    s += JSON.stringify(k) + ':' + stableStringify(v);
  }
  return s + '}';
}
