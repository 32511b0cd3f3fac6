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

/** Thrown by {@link fnv1aJsonValue} for a value whose JSON text it does not reproduce (the caller hashes `JSON.stringify` instead). */
const NOT_PLAIN = new Error('not plain JSON');

/**
 * `fnv1a(JSON.stringify(value), seed)` as an int32 state (no `>>> 0`), without building the text:
 * plain JSON data only (objects of Object.prototype or null, arrays, strings, finite numbers,
 * booleans, null; `undefined` members are left out as JSON.stringify leaves them out). Anything
 * else (a class instance, NaN, a function, a bigint, a hole) throws {@link NOT_PLAIN}.
 * @internal
 */
function hashJson(value: unknown, h: number): number {
  switch (typeof value) {
    case 'string':
      return hashString(value, h);
    case 'number': {
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      // small non-negative integers (most numbers in objects): their digits, no string
      if (Number.isInteger(value) && value >= 0 && value < 1e15 && !Object.is(value, -0)) return hashUint(value, h);
      const s = String(value);
      for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
      return h;
    }
    case 'boolean':
      return value ? hashAscii('true', h) : hashAscii('false', h);
    case 'object': {
      if (value === null) return hashAscii('null', h);
      if (Array.isArray(value)) {
        h = Math.imul(h ^ 91 /* [ */, 0x01000193);
        for (let i = 0; i < value.length; i++) {
          if (i > 0) h = Math.imul(h ^ 44 /* , */, 0x01000193);
          if (!(i in value)) throw NOT_PLAIN;
          const v = value[i] as unknown;
          h = v === undefined ? hashAscii('null', h) : hashJson(v, h);
        }
        return Math.imul(h ^ 93 /* ] */, 0x01000193);
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
      return hashMembers(value as Record<string, unknown>, h, undefined);
    }
    default:
      throw NOT_PLAIN;
  }
}

/** `{"k":v,…}` of an object's members (`skip` returns true for keys left out), as {@link hashJson}. */
function hashMembers(o: Record<string, unknown>, h: number, skip: ((k: string) => boolean) | undefined): number {
  h = Math.imul(h ^ 123 /* { */, 0x01000193);
  let first = true;
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) throw NOT_PLAIN;
    const v = o[k];
    if (v === undefined) continue;
    if (skip !== undefined) {
      if (skip(k)) continue;
      // the list's last member is an object built by assignment, where `__proto__` sets the prototype: the text decides
      if (k === '__proto__') throw NOT_PLAIN;
    }
    if (typeof v === 'function' || typeof v === 'symbol') throw NOT_PLAIN;
    if (!first) h = Math.imul(h ^ 44 /* , */, 0x01000193);
    first = false;
    h = hashString(k, h);
    h = Math.imul(h ^ 58 /* : */, 0x01000193);
    h = hashJson(v, h);
  }
  return Math.imul(h ^ 125 /* } */, 0x01000193);
}

function hashAscii(s: string, h: number): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

function hashUint(n: number, h: number): number {
  if (n >= 10) h = hashUint(Math.floor(n / 10), h);
  return Math.imul(h ^ (48 + (n % 10)), 0x01000193);
}

/** A string's JSON text: the characters as they are when none needs escaping, else JSON.stringify's. */
function hashString(s: string, h: number): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) return hashAscii(JSON.stringify(s), h);
  }
  h = Math.imul(h ^ 34, 0x01000193);
  for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return Math.imul(h ^ 34, 0x01000193);
}

/**
 * `fnv1a(JSON.stringify(value), seed)` without building the text when `value` is plain JSON data
 * (what the store holds); falls back to the text for anything else. Same result either way.
 * @internal
 */
export function fnv1aJson(value: unknown, seed = 0x811c9dc5): number {
  try {
    return hashJson(value, seed | 0) >>> 0;
  } catch {
    // not plain data, or nested deeper than this walk's stack allows: the text decides (and
    // throws what JSON.stringify throws, for a cycle or a bigint)
    return fnv1a(JSON.stringify(value), seed);
  }
}

/**
 * `fnv1a(JSON.stringify([...parts, rest]))` where `rest` holds the members of `restOf` that
 * `skip` does not leave out (and is left out of the list when it has none), without building the
 * list, the object or the text for plain JSON data; the text otherwise. Same result either way.
 * @internal
 */
export function fnv1aJsonList(parts: readonly unknown[], restOf: Record<string, unknown>, skip: (k: string) => boolean): number {
  let rest = false;
  for (const k in restOf) {
    if (restOf[k] !== undefined && !skip(k)) {
      rest = true;
      break;
    }
  }
  try {
    let h = Math.imul(0x811c9dc5 ^ 91 /* [ */, 0x01000193);
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) h = Math.imul(h ^ 44, 0x01000193);
      const v = parts[i];
      h = v === undefined ? hashAscii('null', h) : hashJson(v, h);
    }
    if (rest) {
      if (parts.length > 0) h = Math.imul(h ^ 44, 0x01000193);
      const proto = Object.getPrototypeOf(restOf) as unknown;
      if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
      h = hashMembers(restOf, h, skip);
    }
    return Math.imul(h ^ 93 /* ] */, 0x01000193) >>> 0;
  } catch {
    // not plain data, or nested deeper than this walk's stack allows: the text decides (and
    // throws what JSON.stringify throws, for a cycle or a bigint)
    const list: unknown[] = parts.slice();
    if (rest) {
      const others: Record<string, unknown> = {};
      for (const k in restOf) {
        const v = restOf[k];
        if (v !== undefined && !skip(k)) others[k] = v;
      }
      list.push(others);
    }
    return fnv1a(JSON.stringify(list));
  }
}
