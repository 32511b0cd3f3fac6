import { parentPort, workerData } from 'node:worker_threads';
import type { Scenario } from '../harness/scenario.js';
import { simulate } from '../simulate.js';
import { moduleCheckOptions, runCheckJob, type CheckJob } from './check-job.js';
import { loadModule, pickController } from './load-module.js';
import { UsageError } from './usage-error.js';
import { lockProcessExit } from '../host/exit-lock.js';

/**
 * Worker-thread entry of `--workers N`: runs one check job (a shard of the runs) and reports
 * to the pool. Every simulation is announced first (`sim`, with its scenario), which is both
 * the watchdog's heartbeat and how the pool names the scenario when a reconcile spins
 * synchronously and the thread has to be terminated.
 */

/** Messages a worker sends. @internal */
export type WorkerMessage =
  | { type: 'sim'; scenario: unknown; runIndex: number | undefined }
  | { type: 'progress'; runs: number; total: number; failures: number; phase: string }
  | { type: 'result'; result: unknown }
  | { type: 'error'; usage: boolean; message: string };

/**
 * What the pool passes in `workerData`: a check job, or one scenario to simulate (replaying a
 * reproduction of a scenario that hung, under the same watchdog).
 * @internal
 */
export type WorkerInput = { kind: 'check'; job: CheckJob } | { kind: 'simulate'; module: string; exportName: string; scenario: Scenario };

const port = parentPort;
if (port) {
  // a process.exit in the checked code must never end the thread (the pool would see a crash)
  lockProcessExit();
  const input = workerData as WorkerInput;
  const send = (m: WorkerMessage): void => port.postMessage(m);
  const work =
    input.kind === 'check'
      ? runCheckJob(input.job, {
          onSimulation: (scenario, runIndex) => send({ type: 'sim', scenario, runIndex }),
          onProgress: (p) => send({ type: 'progress', runs: p.runs, total: p.total, failures: p.failures, phase: p.phase }),
        })
      : simulateOne(input, () => send({ type: 'sim', scenario: input.scenario, runIndex: undefined }));
  work.then(
    (result) => send({ type: 'result', result }),
    (err: unknown) => send({ type: 'error', usage: err instanceof UsageError, message: err instanceof Error ? (err instanceof UsageError ? err.message : (err.stack ?? err.message)) : String(err) }),
  );
}

/** Simulates one scenario with the module's check options; resolves to its trace hash. */
async function simulateOne(input: Extract<WorkerInput, { kind: 'simulate' }>, started: () => void): Promise<{ hash: string }> {
  const mod = await loadModule(input.module, process.cwd(), 'replay');
  const { controller } = pickController(mod, input.module, input.exportName, 'replay');
  const base = moduleCheckOptions(mod.exports, input.module);
  started();
  const { run } = await simulate(input.scenario, {
    controllers: [controller],
    ...(base.faults ? { faults: base.faults } : {}),
    environment: (base.environment ?? []).map((e) => ('actor' in e ? e.actor : e)),
    ...(base.downstream ? { downstream: base.downstream } : {}),
    tailMs: base.tailMs ?? 10_000,
    traceReads: base.traceReads ?? true,
  });
  return { hash: run.hash };
}
