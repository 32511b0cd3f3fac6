/** A reconcile result the queue can act on: the two fields, checked. @internal */
export type CheckedResult = { ok: true; requeue: boolean; requeueAfter: number; clampedFrom?: number } | { ok: false; problem: string };

/**
 * The shortest requeue delay (virtual ms): the simulation's time resolution. A reconcile takes
 * no virtual time, so a delay below it would requeue in a loop that never lets time pass; a
 * real reconcile takes at least about this long anyway.
 * @internal
 */
export const MIN_REQUEUE_AFTER_MS = 1;

/** What most reconciles return (nothing): one shared answer, not an object per reconcile. */
const DONE: CheckedResult = Object.freeze({ ok: true, requeue: false, requeueAfter: 0 });

/**
 * Checks what a reconcile returned (controller-runtime's `reconcile.Result`): nothing, or
 * `{ requeue?: boolean, requeueAfter?: ms }`. Sub-millisecond delays are raised to
 * {@link MIN_REQUEUE_AFTER_MS}; anything the queue cannot honour (NaN, ±Infinity, a negative
 * delay, a string, an unknown field such as `requeueAfterMs`) is a problem in words.
 * @internal
 */
export function checkReconcileResult(r: unknown): CheckedResult {
  if (r === undefined || r === null) return DONE;
  if (typeof r !== 'object' || Array.isArray(r)) return { ok: false, problem: `returned ${show(r)}; a reconcile returns nothing or { requeue?: boolean, requeueAfter?: ms }` };
  const o = r as Record<string, unknown>;
  let unknown: string[] | undefined; // built only for a result that has unknown fields (own, in Object.keys order)
  for (const k in o) if (k !== 'requeue' && k !== 'requeueAfter' && Object.hasOwn(o, k)) (unknown ??= []).push(k);
  if (unknown !== undefined) {
    const hint = unknown.find((k) => /requeue/i.test(k));
    return { ok: false, problem: `returned ${show(r)}: unknown field${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => JSON.stringify(k)).join(', ')}${hint ? ` (did you mean ${/after/i.test(hint) ? 'requeueAfter' : 'requeue'}?)` : ''}; a reconcile result has only requeue and requeueAfter` };
  }
  if (o['requeue'] !== undefined && typeof o['requeue'] !== 'boolean') return { ok: false, problem: `returned ${show(r)}: requeue must be true or false` };
  const after = o['requeueAfter'];
  if (after === undefined) return { ok: true, requeue: o['requeue'] === true, requeueAfter: 0 };
  if (typeof after !== 'number') return { ok: false, problem: `returned ${show(r)}: requeueAfter must be a number of milliseconds, got ${typeof after}` };
  if (Number.isNaN(after)) return { ok: false, problem: `returned ${show(r)}: requeueAfter is NaN (often a computation with an undefined operand)` };
  if (!Number.isFinite(after)) return { ok: false, problem: `returned ${show(r)}: requeueAfter must be a finite number of milliseconds; return nothing not to requeue` };
  if (after < 0) return { ok: false, problem: `returned ${show(r)}: requeueAfter is negative, and controller-runtime then does not requeue at all (only a delay > 0 requeues); return { requeueAfter: Math.max(${MIN_REQUEUE_AFTER_MS}, ms) } or { requeue: true } for "as soon as possible"` };
  if (after > 0 && after < MIN_REQUEUE_AFTER_MS) return { ok: true, requeue: o['requeue'] === true, requeueAfter: MIN_REQUEUE_AFTER_MS, clampedFrom: after };
  return { ok: true, requeue: o['requeue'] === true, requeueAfter: after };
}

/** The value as the code wrote it (NaN and Infinity kept, unlike JSON). */
function show(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'function') return 'a function';
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (typeof v === 'object') return `{ ${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}: ${show(x)}`).join(', ')} }`;
  return String(v);
}
