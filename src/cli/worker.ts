import { readlinkSync } from 'node:fs';
import { isMainThread, MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { Scenario } from '../harness/scenario.js';
import { simulate } from '../simulate.js';
import { failureTimelines, loadJobTarget, moduleCheckOptions, openTarget, planJob, runCheckOn, type CheckJob, type CheckJobHooks, type JobTarget, type PlannedJob, type TargetFacts, type TargetSpec } from './check-job.js';
import type { RecordedTimelines } from '../replay.js';
import { loadModule, pickController } from './load-module.js';
import { progressDetail, type ProgressDetail } from './progress.js';
import { UsageError } from './usage-error.js';
import { kernelHooks } from '../sim/kernel.js';
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
  | { type: 'progress'; runs: number; total: number; failures: number; phase: string; detail: ProgressDetail }
  | { type: 'importing' }
  | { type: 'opened'; facts: TargetFacts; job: Pick<CheckJob, 'module' | 'exportName' | 'program'> }
  | { type: 'planned'; planned: PlannedJob }
  /** `timelines`: a `timelines` message follows (the failure's, recorded on a replay). */
  | { type: 'result'; result: unknown; timelines: boolean }
  | { type: 'timelines'; timelines: RecordedTimelines }
  | { type: 'error'; usage: boolean; message: string; detail?: string }
  | { type: 'beat' }
  | { type: 'task'; id: number; label: string }
  /** The thread's kernel thread id (Linux), so the pool can tell a starved thread from a stuck one: sent first. */
  | { type: 'thread'; tid: number };

/**
 * What the pool passes in `workerData`: a check job, or one scenario to simulate (replaying a
 * reproduction of a scenario that hung, under the same watchdog).
 * @internal
 */
export type WorkerInput = ({ kind: 'check'; job: CheckJob } | { kind: 'open'; spec: TargetSpec } | { kind: 'simulate'; module: string; exportName: string; scenario: Scenario }) & {
  /** Slot 0: the id of the task the kernel started last (its label was sent once as a `task` message), so the pool can name a task that never returned. */
  current?: SharedArrayBuffer;
};

/**
 * The pool's end of the channel (worker-pool.ts HarnessWorker), taken out of `workerData` before
 * the checked code loads: that code can reach `parentPort` and `workerData`, never this port.
 */
function takePort(): MessagePort | undefined {
  const data = workerData as { port?: unknown } | null;
  const port = data?.port;
  if (!(port instanceof MessagePort)) return undefined;
  delete data!.port;
  return port;
}

/**
 * The pool's commands, read off the port by polling, never by a listener: a listened port is
 * among the thread's active handles (`process._getActiveHandles()`, where the checked code could
 * take it and post its own verdict), and its messages are dispatched through `EventTarget`'s
 * methods, which the checked code may have replaced to catch the port as `this`. The polling
 * timer keeps the thread alive between commands; it stops after the command that runs the check.
 */
function pollCommands(port: MessagePort, on: (c: WorkerCommand) => void): void {
  const timer = setInterval(() => {
    for (let r = receive(port); r !== undefined; r = receive(port)) {
      const c = r.message as WorkerCommand;
      if (c.type === 'run') clearInterval(timer);
      on(c);
    }
  }, COMMAND_POLL_MS);
}

/** How often a worker that loaded the module looks for the pool's next command (twice per check). */
const COMMAND_POLL_MS = 2;

/** Captured before the checked code runs: a replaced `MessagePort.prototype.postMessage` must not rewrite what this thread reports. */
const postMessage = MessagePort.prototype.postMessage;
const apply = Reflect.apply;
const receive = receiveMessageOnPort;

/**
 * What the main thread sends a worker opened with `kind: 'open'` (it loaded the module and sent
 * its facts): plan the job (read the corpus, validate the options), then run it.
 * @internal
 */
export type WorkerCommand = { type: 'plan'; job: CheckJob; replayCorpus: boolean } | { type: 'run'; job: CheckJob };

/** Distinct task labels sent to the pool at most (a million objects make a million labels). */
const MAX_LABELS = 10_000;
/** Heartbeats during one long simulation: at most one per this many wall ms. */
const BEAT_EVERY_MS = 500;

const port = isMainThread ? undefined : takePort();
// never among the active handles (see pollCommands)
port?.unref();
if (port) {
  // a process.exit in the checked code must never end the thread (the pool would see a crash)
  lockProcessExit();
  const input = workerData as WorkerInput;
  const send = (m: WorkerMessage): void => void apply(postMessage, port, [m]);
  const tid = threadId();
  if (tid !== undefined) send({ type: 'thread', tid });
  if (input.current) {
    // name the task that is running: a synchronous loop never lets this thread say anything else
    const current = new Int32Array(input.current);
    const ids = new Map<string, number>();
    kernelHooks.onTaskStart = (label) => {
      let id = ids.get(label);
      if (id === undefined && ids.size < MAX_LABELS) {
        id = ids.size + 1;
        ids.set(label, id);
        send({ type: 'task', id, label });
      }
      Atomics.store(current, 0, id ?? 0);
    };
  }
  let lastBeat = 0;
  const onHeartbeat = (): void => {
    const now = performance.now();
    if (now - lastBeat < BEAT_EVERY_MS) return;
    lastBeat = now;
    send({ type: 'beat' });
  };
  const hooks: CheckJobHooks = {
    onSimulation: (scenario, runIndex) => send({ type: 'sim', scenario, runIndex }),
    onHeartbeat,
    onProgress: (p) => send({ type: 'progress', runs: p.runs, total: p.total, failures: p.failures, phase: p.phase, detail: progressDetail(p) }),
  };
  const fail = (err: unknown): void => send({ type: 'error', usage: err instanceof UsageError, message: err instanceof Error ? (err instanceof UsageError ? err.message : (err.stack ?? err.message)) : String(err), ...(err instanceof UsageError && err.detail !== undefined ? { detail: err.detail } : {}) });
  // the check, then the timelines of its failure: the main thread never loads the checked code
  const checkAndReport = async (target: JobTarget, job: CheckJob): Promise<void> => {
    const result = await runCheckOn(target.controller, job, target.base, hooks);
    const record = !result.ok && result.property !== 'watchdog';
    send({ type: 'result', result, timelines: record });
    // the verdict is sent: a replay for the report's charts that throws leaves them empty, never the check failed
    if (record) send({ type: 'timelines', timelines: await failureTimelines(target, result).catch(() => ({ objects: [], converged: null })) });
  };
  if (input.kind === 'check') {
    loadJobTarget(input.job).then((target) => checkAndReport(target, input.job)).catch(fail);
  } else if (input.kind === 'open') {
    openTarget(input.spec, () => send({ type: 'importing' })).then(({ target, facts, job }) => {
      send({ type: 'opened', facts, job });
      // polled only now: the timer keeps the thread alive, and a top level awaiting what nothing
      // can settle must still be seen as such
      pollCommands(port, (c: WorkerCommand) => {
        try {
          if (c.type === 'plan') send({ type: 'planned', planned: planJob(target, c.job, c.replayCorpus) });
          else checkAndReport(target, c.job).catch(fail);
        } catch (err) {
          fail(err);
        }
      });
    }, fail);
  } else {
    simulateOne(input, () => send({ type: 'sim', scenario: input.scenario, runIndex: undefined })).then((result) => send({ type: 'result', result, timelines: false }), fail);
  }
}

/**
 * This thread's kernel thread id, from `/proc/thread-self` (Linux; a synchronous read runs on the
 * calling thread), or undefined where there is none.
 */
function threadId(): number | undefined {
  try {
    const tid = Number(/\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1]);
    return Number.isSafeInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
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
