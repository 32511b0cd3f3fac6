/**
 * The attack list (issue 17) as data: each hostile reconciler is one row, run through the public
 * `check` with a one-object workload, and judged by what the verdict must say. Adding an attack
 * is adding a row to a table in one of the *.test.ts files beside this one.
 */
import { expect } from 'vitest';
import { check } from '../../src/check.js';
import { defineController, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import type { CheckOptions } from '../../src/harness/check-options.js';
import type { CheckResult } from '../../src/harness/check-result.js';

/** One hostile reconciler: what it does, and what the verdict must say about it. */
export interface Attack {
  /** What the attacker does, in words (the test's name). */
  attack: string;
  /** Runs inside every reconcile, before the reconcile's honest work. */
  reconcile?: (ctx: ReconcileContext) => Promise<unknown> | unknown;
  /** What every reconcile returns after its honest work. */
  returns?: unknown;
  /** The failed property, e.g. 'isolation'. */
  property: string;
  /** Patterns the verdict's summary + explanation must match. */
  says: RegExp[];
  /** Extra check options for this row. */
  options?: CheckOptions;
}

/** Runs an attack through `check` (no faults, one object, a few runs). */
export async function runAttack(a: Attack): Promise<CheckResult> {
  const c = defineController({
    name: 'hostile',
    for: 'Thing',
    resyncPeriodMs: 0,
    async reconcile(ctx) {
      await a.reconcile?.(ctx);
      const t = await ctx.client.tryGet<{ n: number }, { n?: number; observedGeneration?: number }>('Thing', ctx.key);
      if (t && (t.status.n !== t.spec.n || t.status.observedGeneration !== t.metadata.generation)) await ctx.client.updateStatus({ ...t, status: { n: t.spec.n, observedGeneration: t.metadata.generation } });
      return a.returns as ReconcileResult;
    },
  });
  return check(c, { runs: 2, seed: 1, faults: [], objects: { kind: 'Thing', spec: [{ n: 1 }] }, maxActions: 1, ...a.options });
}

/** The verdict's words, for matching. */
export function words(r: CheckResult): string {
  return r.ok ? '(passed)' : `${r.summary}\n${r.explanation}`;
}

/** Runs an attack and asserts its verdict: failed, the row's property, every pattern in its words. */
export async function expectVerdict(a: Attack): Promise<void> {
  const r = await runAttack(a);
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.property).toBe(a.property);
  for (const re of a.says) expect(words(r)).toMatch(re);
}
