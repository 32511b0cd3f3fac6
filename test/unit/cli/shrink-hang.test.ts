import { describe, expect, it } from 'vitest';
import { hangSite, unshrunkRetry, withShrinkHang } from '../../../src/cli/worker-pool.js';
import type { CheckFailed, CheckResult } from '../../../src/harness/check-result.js';
import type { CheckJob } from '../../../src/cli/check-job.js';

/**
 * A watchdog that ends a shrinking candidate must not lose the failure being shrunk (h50, W-2: a
 * hosted program's fight ended the check as `watchdog` on a slow shrinking candidate, the real
 * no-hot-loop failure was lost, and the report could not be replayed). The pool runs the failing
 * run again unshrunk and reports that failure, saying why it is not shrunk.
 */
const job: CheckJob = { module: '/m.ts', exportName: 'c', seed: 1, corpus: [{ seed: 3 } as never], corpusNames: ['a.json'], hungRuns: [1] };
const hang = { ok: false, property: 'watchdog', summary: 'a shrinking candidate never returned control: its worker thread was stuck for 12.5 s', failedAtRun: 0, runs: 4 } as CheckFailed;

describe('a hang while shrinking', () => {
  it('reruns the failing generated run with no shrinking budget, and no corpus', () => {
    expect(unshrunkRetry(job, 3)).toEqual({ ...job, corpus: [], corpusNames: [], resumeAt: 3, shrinkTimeLimitMs: 1 });
  });

  it('is the verdict when there is no generated run to rerun (a corpus failure, systematic plans)', () => {
    expect(unshrunkRetry(job, undefined)).toBeUndefined();
    expect(unshrunkRetry({ ...job, search: 'systematic' }, 3)).toBeUndefined();
  });

  it("reports the rerun's failure, with the runs before it and why it is not shrunk", () => {
    const found = { ok: false, property: 'no-hot-loop', summary: 'hot loop', explanation: 'Let: x. Then: y.', failedAtRun: 4, runs: 1 } as CheckFailed;
    const r = withShrinkHang(found, hang, 3) as CheckFailed;
    expect(r).toMatchObject({ property: 'no-hot-loop', summary: 'hot loop', failedAtRun: 4, runs: 4 });
    expect(r.explanation).toBe(`Let: x. Then: y.\nNot shrunk: while shrinking this failure, ${hang.summary}. The failure is reported as found in run 4; the watchdog ends a shrinking candidate that goes without a simulation step for --watchdog ms of wall time, a slow one on a loaded host as well as a hung one.`);
  });

  it('keeps the hang when the rerun does not fail as found (it hung again, or passed)', () => {
    expect(withShrinkHang({ ...hang, summary: 'again' }, hang, 3)).toBe(hang);
    expect(withShrinkHang({ ok: true, runs: 1 } as CheckResult, hang, 3)).toBe(hang);
  });

  it("names where the check hung; a hang of the unshrunk rerun names that run, not a shrinking candidate", () => {
    const base = { shrinking: false, systematic: false, inCorpus: false, runIndex: 6, runs: 2, rerunOf: undefined };
    expect(hangSite(base)).toBe('run 7');
    expect(hangSite({ ...base, shrinking: true })).toBe('a shrinking candidate');
    expect(hangSite({ ...base, systematic: true })).toBe('systematic plan 3');
    expect(hangSite({ ...base, inCorpus: true })).toBe('corpus scenario 3');
    expect(hangSite({ ...base, shrinking: true, rerunOf: 3 })).toBe('run 4 (made again, unshrunk, after its shrinking hung)');
  });
});
