import { describe, expect, it } from 'vitest';
import { judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { apiError } from '../../faults/api-error.js';
import { defineController, type FaultPlan } from '../../src/index.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: apiError,
  label: 'generated names vs deterministic names (timeout after apply)',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // the first call is web's Pod create: applied, but the caller sees a 504 and retries
  breaking: { events: [{ kind: 'api-error', nth: 0, params: { status: 504, applied: true } }], background: [] },
  gen: { controllers: ['x'], kinds: ['App'], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'api-error', nth: 0, params: { status: 500 } },
  search: { numRuns: 200, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('api-error', () => {
  const plan = (params: FaultPlan['events'][number]['params']): FaultPlan => ({ events: [{ kind: 'api-error', nth: 0, ...(params ? { params } : {}) }], background: [] });

  it('a plain 500 is retried with backoff and is harmless to both', async () => {
    for (const def of [singleChildBuggy, singleChildCorrect]) {
      const run = await runCase(lawCase, def, plan({ status: 500 }));
      const failed = run.trace.find((e) => e.type === 'reconcile:end' && e['result'] === 'error');
      expect(failed).toMatchObject({ retryInMs: 5 });
      expect(judgeSingleChild(run)).toBe(true);
    }
  });

  it('429 carries Retry-After to the reconciler as a typed error', async () => {
    const seen: unknown[] = [];
    const probe = defineController({
      name: 'probe',
      for: 'App',
      async reconcile(ctx) {
        try {
          await ctx.client.patchStatus('App', ctx.key, { status: { seen: true } });
        } catch (err) {
          seen.push({ reason: (err as { reason?: string }).reason, code: (err as { code?: number }).code, retryAfterSeconds: (err as { retryAfterSeconds?: number }).retryAfterSeconds });
        }
      },
    });
    await runCase(lawCase, probe, plan({ status: 429, retryAfterSeconds: 3 }));
    expect(seen[0]).toEqual({ reason: 'TooManyRequests', code: 429, retryAfterSeconds: 3 });
  });

  it('live reads fail too; cached reads never reach the API server', async () => {
    const errors: string[] = [];
    const reader = defineController({
      name: 'reader',
      for: 'App',
      async reconcile(ctx) {
        await ctx.client.get('App', ctx.key); // cached: not counted
        try {
          await ctx.client.get('App', ctx.key, { live: true });
        } catch (err) {
          errors.push((err as Error).name);
        }
      },
    });
    await runCase(lawCase, reader, plan({ status: 503 }));
    expect(errors).toEqual(['ServiceUnavailableError']);
  });
});
