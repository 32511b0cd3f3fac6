import type { RunRecord } from './property.js';

/**
 * Run records handed to code of the user's (a property they wrote, or a built-in given a
 * predicate) are made read-only first. Properties share one
 * record (and the twin cache shares twins across scenarios): a property that edited it, by malice
 * or by sorting `run.trace` in place, would change what every later property judges and what the
 * report and reproduction show. Built-in properties are trusted not to, so a check that uses only
 * them pays nothing (sealing costs 3-6% of a check of a case whose oracle is the user's).
 */
export function sealRun(record: RunRecord): void {
  deepFreeze(record);
}

/** Deep-freezes plain data made of run records (the benign runs a property learns from). */
export function sealValue(value: object): void {
  deepFreeze(value);
}

/**
 * Records are plain data the harness built (clones of objects, never frozen before): a frozen
 * object is one sealed here already, with everything under it, so freezing doubles as the mark.
 * Only plain objects and arrays are frozen: an instance of some class (a fake service's state a
 * user's downstream reported) may be live state its owner still uses.
 */
function deepFreeze(root: object): void {
  if (Object.isFrozen(root)) return;
  const stack: object[] = [root];
  while (stack.length > 0) {
    const o = stack.pop()!;
    if (Object.isFrozen(o)) continue;
    if (Array.isArray(o)) {
      Object.freeze(o);
      for (let i = 0; i < o.length; i++) {
        const v: unknown = o[i];
        if (typeof v === 'object' && v !== null) stack.push(v);
      }
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null) continue;
    Object.freeze(o);
    for (const key of Object.keys(o)) {
      const v = (o as Record<string, unknown>)[key];
      if (typeof v === 'object' && v !== null) stack.push(v);
    }
  }
}

/** A message that tells a property's author why editing the run failed, when it did. */
export function readOnlyHint(err: unknown): string {
  if (!(err instanceof TypeError) || !/read[- ]only|not extensible|Cannot (assign|add|delete|define)|frozen/i.test(err.message)) return '';
  return ' The run record (and the twin and extra runs) is read-only while properties judge it: properties share it, and one that edited it would change what the others judge and what the report shows. Copy before sorting or editing, e.g. `[...run.trace].sort(...)`.';
}
