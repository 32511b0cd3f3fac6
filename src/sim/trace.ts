import { fnv1a, hex8, stableStringify } from './hash.js';

/**
 * One entry of a run's trace. `type` is `noun:verb` (msw's lifecycle-event style); the other
 * fields are plain JSON so a trace can be written to a report and hashed.
 * @public
 */
export interface TraceEntry {
  /** Virtual time in milliseconds. */
  t: number;
  type: TraceType;
  [field: string]: unknown;
}

/** @public */
export type TraceType =
  | 'run:start'
  | 'run:phase'
  | 'run:end'
  | 'run:budget'
  | 'run:stopped'
  | 'run:interrupted'
  | 'user:action'
  | 'store:read'
  | 'store:write'
  | 'watch:event'
  | 'informer:list'
  | 'informer:relist'
  | 'informer:time-travel'
  | 'program:list'
  | 'informer:resync'
  | 'informer:notify'
  | 'handler:start'
  | 'handler:end'
  | 'queue:add'
  | 'reconcile:start'
  | 'reconcile:end'
  | 'downstream:request'
  | 'fault:inject'
  | 'controller:start'
  | 'controller:crash'
  | 'controller:stop'
  | 'controller:leader'
  | 'environment:step'
  | 'environment:sync'
  | 'kernel:blocked'
  | 'kernel:loop'
  | 'network:refused'
  | 'invariant:violated'
  | 'process:exit'
  | 'http:request'
  | 'watch:close'
  | 'settle:relist'
  | 'log';

/**
 * Append-only record of what happened in a run. Entries are kept as given (no copies) so
 * recording stays cheap; callers pass fresh plain objects.
 * @public
 */
export class Trace {
  readonly entries: TraceEntry[] = [];

  push(entry: TraceEntry): void {
    this.entries.push(entry);
  }

  /**
   * Stable hash of the whole trace: equal traces ⇒ equal hashes, across processes. Entries are
   * built by our own code with a fixed key order, so plain JSON is stable and much cheaper than
   * sorting keys.
   */
  hash(): string {
    return hashEntries(this.entries);
  }
}

/** Hash of a list of trace entries (see {@link Trace.hash}). @internal */
export function hashEntries(entries: readonly TraceEntry[]): string {
  let h = 0x811c9dc5;
  const chunk = 256;
  for (let i = 0; i < entries.length; i += chunk) h = fnv1a(JSON.stringify(entries.slice(i, i + chunk)), h);
  return hex8(h);
}

/** Index and both sides of the first entry where two traces differ, or undefined. @public */
export function firstDivergence(a: readonly TraceEntry[], b: readonly TraceEntry[]): { index: number; a: TraceEntry | undefined; b: TraceEntry | undefined } | undefined {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined || stableStringify(x) !== stableStringify(y)) return { index: i, a: x, b: y };
  }
  return undefined;
}
