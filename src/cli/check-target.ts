import type { CheckResult } from '../harness/check-result.js';
import type { RecordedTimelines } from '../replay.js';
import type { CheckJob, PlannedJob, TargetFacts, TargetSpec } from './check-job.js';
import { progressDetail, type ProgressDetail } from './progress.js';
import { openInWorker, runCheckInWorkers } from './worker-pool.js';
import { warmUpCompiler } from '../host/child-processes.js';

/**
 * What `steadystate check` checks, loaded where its runs will run. With worker threads (the
 * default) the first worker loads the module and only plain facts reach this thread: the
 * checked code never runs in the thread that writes the verdict, and steadystate's engine is
 * loaded once per thread that simulates (start-up is most of a short check's time). With
 * `--workers 0` everything happens here.
 * @internal
 */
export interface CheckTarget {
  facts: TargetFacts;
  /** The module's path and export (or the program), for the job. */
  job: Pick<CheckJob, 'module' | 'exportName' | 'program'>;
  /** Reads the controller's regression corpus (when `replayCorpus`) and validates the job's options. */
  plan(job: CheckJob, replayCorpus: boolean): Promise<PlannedJob>;
  /** Runs the check; a failure comes with the timelines its report charts. */
  run(job: CheckJob, onProgress: (runs: number, failures: number, detail: ProgressDetail) => void): Promise<{ result: CheckResult; timelines: RecordedTimelines }>;
  /** Ends a worker that has not run (a usage error after loading); idempotent. */
  close(): void;
}

/**
 * Loads the target in the first worker thread, or in this thread with `workers: 0`.
 * @param what - the module or program, as messages name it
 * @throws UsageError for unknown flag names, or a module the check cannot use
 * @internal
 */
export async function openCheckTarget(spec: TargetSpec, pool: { workers: number; watchdogMs: number }, what: string): Promise<CheckTarget> {
  if (pool.workers > 0) {
    await warmUpCompiler(); // before any worker runs the checked code: the one child process spared (red team rt42 F6b)
    const opened = await openInWorker(spec, what);
    return {
      facts: opened.facts,
      job: opened.job,
      plan: opened.plan,
      run: (job, onProgress) => runCheckInWorkers(job, { workers: pool.workers, watchdogMs: pool.watchdogMs, first: opened, onProgress: (runs, _total, failures, detail) => onProgress(runs, failures, detail) }),
      close: opened.close,
    };
  }
  // the engine is loaded here only now: with worker threads this thread never needs it
  const { failureTimelines, openTarget, planJob, runCheckOn } = await import('./check-job.js');
  const { target, facts, job } = await openTarget(spec);
  return {
    facts,
    job,
    plan: async (j, replayCorpus) => planJob(target, j, replayCorpus),
    run: async (j, onProgress) => {
      const result = await runCheckOn(target.controller, j, target.base, { onProgress: (p) => onProgress(p.runs, p.failures, progressDetail(p)) });
      return { result, timelines: await failureTimelines(target, result) };
    },
    close: () => undefined,
  };
}
