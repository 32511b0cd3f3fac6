import { isRecord, stable } from './json.js';

/**
 * Field paths with array elements: parsing, printing, leaf diffs and masks.
 *
 * A path prints as `status.conditions[0].message`; a key that is not a plain identifier prints
 * whole, quoted (`metadata.annotations["example.com/hash"]`). A mask is a path pattern: `*` for any
 * one key or element (`metadata.annotations.*`), `[*]` for any element, `[2]` for one index,
 * `[type=Ready]` for the elements whose `type` is `Ready`:
 * `status.conditions[*].lastTransitionTime`, `status.conditions[type=Ready].message`.
 * @internal
 */

/** One step of a concrete path: an object key or an array index. */
export type Segment = string | number;

/** One step of a mask pattern. */
export type PatternStep = { key: string } | { any: true } | { index: number } | { field: string; value: string };

const IDENT = /^[A-Za-z_$][\w$-]*$/;

/** A concrete path in words: `status.conditions[0].message`, `metadata.annotations["a.b/c"]`. */
export function fmtPath(path: readonly Segment[]): string {
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (IDENT.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out === '' ? '.' : out;
}

/** Why a mask does not parse, or its steps. */
export function parsePattern(mask: string): PatternStep[] | string {
  const steps: PatternStep[] = [];
  let i = 0;
  const n = mask.length;
  if (n === 0) return 'a mask must not be empty';
  while (i < n) {
    const c = mask[i]!;
    if (c === '.') {
      if (i === 0 || i === n - 1 || mask[i + 1] === '.' || mask[i + 1] === '[') return `unexpected "." at position ${i} of ${JSON.stringify(mask)}`;
      i++;
      continue;
    }
    if (c === '[') {
      const close = findClose(mask, i);
      if (close < 0) return `unclosed "[" at position ${i} of ${JSON.stringify(mask)}`;
      const inner = mask.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === '*') steps.push({ any: true });
      else if (/^\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (inner.startsWith('"')) {
        try {
          const k: unknown = JSON.parse(inner);
          if (typeof k !== 'string') return `[${inner}] is not a quoted key in ${JSON.stringify(mask)}`;
          steps.push({ key: k });
        } catch {
          return `[${inner}] is not a quoted key in ${JSON.stringify(mask)}`;
        }
      } else {
        const eq = inner.indexOf('=');
        if (eq <= 0) return `[${inner}] in ${JSON.stringify(mask)} is not [*], [index], ["key"] or [field=value]`;
        steps.push({ field: inner.slice(0, eq).trim(), value: unquote(inner.slice(eq + 1).trim()) });
      }
      continue;
    }
    let j = i;
    while (j < n && mask[j] !== '.' && mask[j] !== '[') j++;
    const word = mask.slice(i, j);
    steps.push(word === '*' ? { any: true } : { key: word });
    i = j;
  }
  return steps;
}

function findClose(s: string, open: number): number {
  let quoted = false;
  for (let i = open + 1; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ']' && !quoted) return i;
  }
  return -1;
}

function unquote(v: string): string {
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0]) return v.slice(1, -1);
  return v;
}

/** A concrete path parsed back (`fmtPath`'s inverse); undefined when it holds pattern steps. */
export function parsePath(path: string): Segment[] | undefined {
  if (path === '.') return [];
  const steps = parsePattern(path);
  if (typeof steps === 'string') return undefined;
  const out: Segment[] = [];
  for (const s of steps) {
    if ('key' in s) out.push(s.key);
    else if ('index' in s) out.push(s.index);
    else return undefined;
  }
  return out;
}

function stepMatches(step: PatternStep, container: unknown, seg: Segment): boolean {
  if ('any' in step) return true;
  if ('key' in step) return typeof seg === 'string' ? step.key === seg : String(seg) === step.key;
  if ('index' in step) return seg === step.index;
  if (typeof seg !== 'number' || !Array.isArray(container)) return false;
  const el: unknown = container[seg];
  return isRecord(el) && String(el[step.field]) === step.value;
}

/**
 * `value` without what `pattern` selects (elements selected at the end of a pattern are removed
 * from their array). Counts each path removed in `hits` (for mask validation). Copy on write: a
 * value nothing is removed from is returned as it is (normalized states are never mutated; each
 * state is masked by every mask, and most masks select nothing in most objects).
 */
export function dropPattern(value: unknown, pattern: readonly PatternStep[], hits?: { n: number }): unknown {
  return dropFrom(value, pattern, 0, hits);
}

/** {@link dropPattern} of `pattern` from step `at` on (no list of the remaining steps made per level). */
function dropFrom(value: unknown, pattern: readonly PatternStep[], at: number, hits: { n: number } | undefined): unknown {
  if (at >= pattern.length) return value;
  const step = pattern[at]!;
  const last = at === pattern.length - 1;
  if (Array.isArray(value)) {
    if ('key' in step && !/^\d+$/.test(step.key)) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      // a hole is left out of the copy, as forEach leaves it out
      if (!(i in value)) {
        out ??= value.slice(0, i);
        continue;
      }
      const el: unknown = value[i];
      if (!stepMatches(step, value, i)) {
        if (out !== undefined) out.push(el);
      } else if (last) {
        if (hits) hits.n++;
        out ??= value.slice(0, i);
      } else {
        const d = dropFrom(el, pattern, at + 1, hits);
        if (out === undefined && d !== el) out = value.slice(0, i);
        if (out !== undefined) out.push(d);
      }
    }
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  if ('index' in step || 'field' in step) return value;
  const keys = Object.keys(value);
  // a copy assigns its keys, and `__proto__` assigned sets the prototype instead: such a value is always copied, as it was
  let out: Record<string, unknown> | undefined = keys.includes('__proto__') ? {} : undefined;
  let copied = out === undefined ? -1 : 0;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = value[k];
    let keep = true;
    let d: unknown = v;
    if (stepMatches(step, value, k)) {
      if (last) {
        if (hits) hits.n++;
        keep = false;
      } else d = dropFrom(v, pattern, at + 1, hits);
    }
    if (out === undefined && (!keep || d !== v)) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j]!] = value[keys[j]!];
      copied = i;
    }
    if (out !== undefined && keep && i >= copied) out[k] = d;
  }
  return out ?? value;
}

/** `value` with the leaf or subtree at a concrete path removed. */
export function dropPath(value: unknown, path: readonly Segment[]): unknown {
  return dropPattern(
    value,
    path.map((s) => (typeof s === 'number' ? { index: s } : { key: s })),
  );
}

/** `value` with the array at `path` (when there is one) in a canonical order: a list compared as a set. */
export function sortAt(value: unknown, path: readonly Segment[]): unknown {
  if (path.length === 0) return Array.isArray(value) ? [...value].sort((a, b) => (stable(a) < stable(b) ? -1 : stable(a) > stable(b) ? 1 : 0)) : value;
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (Array.isArray(value) && typeof head === 'number' && head < value.length) return value.map((el, i) => (i === head ? sortAt(el, rest) : el));
  if (isRecord(value) && typeof head === 'string' && head in value) return { ...value, [head]: sortAt(value[head], rest) };
  return value;
}

/** One differing leaf: its full path and the two values (undefined where absent). */
export interface LeafDiff {
  path: Segment[];
  expected: unknown;
  actual: unknown;
}

/**
 * Every differing leaf of two JSON values, with its full path, descending into objects and arrays
 * (arrays index by index; elements only one side has differ as a whole).
 */
export function leafDiffs(expected: unknown, actual: unknown, path: Segment[] = [], out: LeafDiff[] = []): LeafDiff[] {
  if (expected === actual) return out;
  // most objects compared are equal: a walk that allocates nothing says so, before the walk that builds paths
  if (sameLeaves(expected, actual)) return out;
  if (isRecord(expected) && isRecord(actual)) {
    for (const k of [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort()) {
      const e = expected[k];
      const a = actual[k];
      if (e === undefined && a === undefined) continue;
      leafDiffs(e, a, [...path, k], out);
    }
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) leafDiffs(i < expected.length ? expected[i] : undefined, i < actual.length ? actual[i] : undefined, [...path, i], out);
    return out;
  }
  if (stable(expected) !== stable(actual)) out.push({ path, expected, actual });
  return out;
}

/**
 * True only when {@link leafDiffs} finds no differing leaf: the same walk (keys absent or
 * undefined on both sides skipped), with leaves compared by identity. False may still mean no
 * difference (leaves equal only as JSON, such as two NaN): the full walk decides those.
 */
function sameLeaves(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    for (const k in a) {
      if (!Object.prototype.hasOwnProperty.call(a, k)) return false;
      const x = a[k];
      const y = b[k];
      if (x === undefined && y === undefined) continue;
      if (!sameLeaves(x, y)) return false;
    }
    for (const k in b) {
      if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
      // a key of b's only: b's value against absent (a key of both was compared above)
      if (b[k] !== undefined && !Object.prototype.hasOwnProperty.call(a, k)) return false;
    }
    return true;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameLeaves(a[i], b[i])) return false;
    return true;
  }
  return false;
}

/** Paths (below `path`) of arrays that hold the same members in another order on the two sides. */
export function permutedArrays(a: unknown, b: unknown, path: Segment[] = [], out: Segment[][] = []): Segment[][] {
  if (stable(a) === stable(b)) return out;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length === b.length && stable([...a].map(stable).sort()) === stable([...b].map(stable).sort())) out.push(path);
    else for (let i = 0; i < Math.min(a.length, b.length); i++) permutedArrays(a[i], b[i], [...path, i], out);
    return out;
  }
  if (isRecord(a) && isRecord(b)) for (const k of Object.keys(a)) if (k in b) permutedArrays(a[k], b[k], [...path, k], out);
  return out;
}

/** Every path in a value (objects and arrays, intermediate and leaf), formatted, up to `max`. */
export function allPaths(value: unknown, prefix: Segment[] = [], out: Set<string> = new Set(), max = 5000): Set<string> {
  if (out.size >= max) return out;
  if (prefix.length > 0) out.add(fmtPath(prefix));
  if (isRecord(value)) for (const [k, v] of Object.entries(value)) allPaths(v, [...prefix, k], out, max);
  else if (Array.isArray(value)) value.forEach((v, i) => allPaths(v, [...prefix, i], out, max));
  return out;
}

/** The candidate nearest to `word` by edit distance (ties: the shorter, then the first). */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c, bestD);
    if (d < bestD || (d === bestD && best !== undefined && c.length < best.length)) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > cap) return Infinity;
    prev = cur;
  }
  return prev[b.length]!;
}
