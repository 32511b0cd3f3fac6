import { Kernel, type Task } from '../../../src/sim/kernel.js';
import type { DownstreamHost } from '../../../src/downstream/intercept.js';
import type { FetchDecision, FetchInfo } from '../../../src/downstream/fetch-decision.js';

/** A host backed by a real kernel, with an optional fault seam. */
export function hostFor(kernel: Kernel, decide?: (info: FetchInfo) => FetchDecision): DownstreamHost {
  return {
    now: () => kernel.now(),
    after: (ms, fn) => kernel.after(ms, fn),
    park: kernel.park.bind(kernel),
    touch: () => kernel.touch(),
    external: () => kernel.external(),
    decide,
  };
}

export type TaskResult<T> = { ok: true; value: T; at: number } | { ok: false; error: unknown; at: number };

/** Runs `body` as one kernel task until it settles (or `untilMs`), returning its outcome and virtual end time. */
export async function runTask<T>(kernel: Kernel, body: (task: Task) => Promise<T>, untilMs = 10_000_000): Promise<TaskResult<T>> {
  let result: TaskResult<T> | undefined;
  kernel.spawn(
    'test',
    async (task) => {
      const value = await body(task);
      result = { ok: true, value, at: kernel.now() };
    },
    (error, failed) => {
      if (failed) result = { ok: false, error, at: kernel.now() };
    },
  );
  await kernel.run(untilMs);
  if (!result) throw new Error('task did not settle');
  return result;
}

/** A seeded decision stream, so determinism tests do not depend on Math.random. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
