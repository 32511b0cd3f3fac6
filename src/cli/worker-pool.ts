import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { CheckFailed, CheckResult } from '../harness/check-result.js';
import type { RunRecord } from '../harness/property.js';
import type { Scenario } from '../harness/scenario.js';
import type { Shard } from '../harness/shard.js';
import type { CheckJob, PlannedJob, TargetFacts, TargetSpec } from './check-job.js';
import type { RecordedTimelines } from '../replay.js';
import { describeTask } from '../harness/isolation.js';
import type { ProgressDetail } from './progress.js';
import { mergeCheckResults } from './merge-results.js';
import { loadTimeoutMs } from './load-timeout.js';
import { UsageError } from './usage-error.js';
import type { WorkerCommand, WorkerInput, WorkerMessage } from './worker.js';

/** Options of {@link runCheckInWorkers}. @internal */
export interface PoolOptions {
  workers: number;
  /**
   * Wall-clock ms a worker may go without a simulation step before it is terminated, counting
   * only time its thread was busy (see {@link stalledFor}): a worker waiting (on a module loading,
   * starved of CPU by a loaded host) is not stuck.
   */
  watchdogMs: number;
  /** Totals over all workers, and the phase (shrinking, when a worker shrinks a failure). */
  onProgress?: (runs: number, total: number, failures: number, detail: ProgressDetail) => void;
  /** A worker that already loaded the module ({@link openInWorker}): it runs the first slot. */
  first?: OpenedWorker;
}

/** The merged result of a check in workers, and the timelines of its failure (recorded by the worker that found it). @internal */
export interface PoolResult {
  result: CheckResult;
  timelines: RecordedTimelines;
}

/**
 * A worker thread that loaded the module to check (the main thread never does): the facts the
 * command line plans with, a way to plan the job where the controller is, and the worker itself,
 * which then runs the first slot of {@link runCheckInWorkers}.
 * @internal
 */
export interface OpenedWorker {
  facts: TargetFacts;
  job: Pick<CheckJob, 'module' | 'exportName' | 'program'>;
  worker: HarnessWorker;
  current: Int32Array;
  plan(job: CheckJob, replayCorpus: boolean): Promise<PlannedJob>;
  /** Ends the thread (idempotent): after a usage error, or when the pool is done with it. */
  close(): void;
}

/**
 * Starts a worker that loads the module (or the program) of `spec`, checking the flag names first.
 * A top level that never returns control (a synchronous loop) is given up on after the load grace.
 * @throws UsageError as loading it in this thread would
 * @internal
 */
export async function openInWorker(spec: TargetSpec, what: string): Promise<OpenedWorker> {
  const current = new Int32Array(new SharedArrayBuffer(4));
  const worker = spawnWorker({ kind: 'open', spec, current: current.buffer as SharedArrayBuffer });
  // between requests nobody listens: a crash then must not be an unhandled 'error' event
  // (the pool's own listener reports it once the worker runs its slot)
  worker.on('error', () => undefined);
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    void worker.terminate();
  };
  // one request at a time: the reply (or the thread's end) settles it
  const request = <T>(send: (() => void) | undefined, accept: (m: WorkerMessage) => T | undefined, graceMs: number): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const stuck = (ms: number): ReturnType<typeof setTimeout> => setTimeout(() => done(new UsageError(`steadystate check: loading ${what} did not return control within ${ms / 1000} s: its top level runs a synchronous loop or blocks (a busy-wait, execSync, Atomics.wait). Move that work out of the module's top level; STEADYSTATE_LOAD_TIMEOUT_MS sets this limit.`)), ms);
      let timer = stuck(graceMs);
      const done = (err: Error | undefined, value?: T): void => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (err) {
          close();
          reject(err);
        } else resolve(value as T);
      };
      const onMessage = (m: WorkerMessage): void => {
        if (m.type === 'importing') {
          // the top level runs now: its own timeout covers a top level that waits, this one a top level that never yields
          clearTimeout(timer);
          timer = stuck(loadTimeoutMs() + IMPORT_MARGIN_MS);
        } else if (m.type === 'error') done(m.usage ? new UsageError(m.message, m.detail !== undefined ? { detail: m.detail } : {}) : new Error(`steadystate check: a worker thread failed: ${m.message}`));
        else {
          const v = accept(m);
          if (v !== undefined) done(undefined, v);
        }
      };
      const onError = (err: unknown): void => done(new Error(`steadystate check: a worker thread crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
      const onExit = (): void => done(new Error('steadystate check: a worker thread exited before loading the module'));
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      send?.();
    });
  const opened = await request(undefined, (m) => (m.type === 'opened' ? m : undefined), LOAD_GRACE_MS);
  return {
    facts: opened.facts,
    job: opened.job,
    worker,
    current,
    plan: (job, replayCorpus) => request(() => worker.postMessage({ type: 'plan', job, replayCorpus } satisfies WorkerCommand), (m) => (m.type === 'planned' ? m.planned : undefined), LOAD_GRACE_MS),
    close,
  };
}

/** Wall-clock allowance for a worker to load tsx and the user's module. */
const LOAD_GRACE_MS = 60_000;
/**
 * Wall-clock ms a worker may go without a simulation step while its thread is idle (waiting, not
 * running code) before the watchdog ends it anyway: a safety net for a wait that never ends.
 * Idle waits inside a run are bounded on their own (a module load's hold, real I/O declared
 * blocked), so this is far above any of them, however loaded the host.
 */
const IDLE_CEILING_MS = 600_000;

/**
 * How long a worker has been stuck since its last heartbeat, as the watchdog judges it, or
 * undefined while it is not: `wallMs` of wall time, of which its thread was busy (its event loop
 * running code, not waiting: {@link HarnessWorker.busyMs}) for `busyMs`. A reconcile in a
 * synchronous loop, a loop on `await null` or a blocking call keeps the thread busy all along,
 * so it is caught after `watchdogMs` as before; a thread that waits (the kernel holding virtual
 * time while a hosted program's module loads on the loader thread, which a loaded host can make
 * last many seconds) is not stuck, whatever the wall clock says. Busy time is wall time too (a
 * thread descheduled mid-loop stays busy), so a hang is caught as fast on a loaded host.
 * @internal
 */
export function stalledFor(wallMs: number, busyMs: number | undefined, watchdogMs: number): boolean {
  if (wallMs <= watchdogMs) return false;
  // no measure of the thread (it has ended, or this Node cannot tell): wall time alone, as before
  if (busyMs === undefined) return true;
  return busyMs > watchdogMs || wallMs > Math.max(IDLE_CEILING_MS, watchdogMs);
}
/** Past the module's own load timeout, before a top level that never yields is given up on (its timeout cannot fire then). */
const IMPORT_MARGIN_MS = 2_000;

interface Slot {
  /** 0-based slot number. */
  k: number;
  job: CheckJob;
  worker: HarnessWorker | undefined;
  lastBeat: number;
  /** The worker thread's busy time ({@link HarnessWorker.busyMs}) at `lastBeat`. */
  busyAtBeat: number | undefined;
  lastScenario: Scenario | undefined;
  /** 0-based index of the generated run last started (undefined while replaying the corpus). */
  lastRunIndex: number | undefined;
  /** Runs completed by earlier workers of this slot (restarts after a hang). */
  runsBefore: number;
  runs: number;
  total: number;
  failures: number;
  phase: string;
  /** The worker's last progress detail (shrink step, budget left). */
  detail: ProgressDetail | undefined;
  /** Labels of the tasks the worker started, by id, and the id of the one it started last. */
  labels: Map<number, string>;
  current: Int32Array;
  /** The worker reported its result and records the failure's timelines: the check is over. */
  recording: boolean;
  /** The result it reported. */
  reported: CheckResult | undefined;
  /** 0-based index of the generated run whose failure the slot was shrinking, once it found one. */
  failedRun: number | undefined;
  /** The hang that ended that shrinking, when the slot runs the failure again unshrunk ({@link unshrunkRetry}). */
  shrinkHang: { hang: CheckFailed; runsBefore: number } | undefined;
}

/**
 * Runs a check in `workers` worker threads. The run-index space (or the `--shard` slice of it)
 * is dealt round-robin to the workers, so together they run exactly the runs of one thread.
 * A wall-clock watchdog terminates a worker that stops starting simulations (a reconcile
 * spinning in a synchronous loop cannot be preempted any other way), turns the scenario it
 * was running into a `watchdog` failure, and restarts the worker after that scenario so the
 * remaining runs still run. Results are merged; the failure with the lowest run number wins.
 * @internal
 */
export async function runCheckInWorkers(job: CheckJob, options: PoolOptions): Promise<PoolResult> {
  const base: Shard = job.shard ?? { index: 0, count: 1 };
  const slots: Slot[] = [];
  for (let k = 0; k < options.workers; k++) {
    const shard = { index: base.index + base.count * k, count: base.count * options.workers };
    // the corpus is replayed once, by the first worker
    slots.push({ k, job: { ...job, shard, corpus: k === 0 ? (job.corpus ?? []) : [], corpusNames: k === 0 ? (job.corpusNames ?? []) : [] }, worker: undefined, lastBeat: 0, busyAtBeat: undefined, lastScenario: undefined, lastRunIndex: undefined, runsBefore: 0, runs: 0, total: 0, failures: 0, phase: 'corpus', detail: undefined, labels: new Map(), current: k === 0 && options.first ? options.first.current : new Int32Array(new SharedArrayBuffer(4)), recording: false, reported: undefined, failedRun: undefined, shrinkHang: undefined });
  }
  const results: CheckResult[] = [];
  const timelines = new Map<CheckResult, RecordedTimelines>();
  let first = options.first;
  const hangs: CheckFailed[] = [];
  let usage: UsageError | undefined;
  let crash: Error | undefined;
  // The lowest failing run index known so far: a worker past it cannot find an earlier failure,
  // so it is stopped (its completed runs still count). -1: a corpus scenario failed. A hang is a
  // verdict on one scenario, not the end of the check: the remaining scenarios still run.
  let firstFailure = Number.POSITIVE_INFINITY;
  let stoppedRuns = 0;

  const report = (): void => {
    let runs = 0;
    let total = 0;
    let failures = hangs.length;
    let detail: ProgressDetail = { phase: 'runs' };
    for (const s of slots) {
      runs += s.runsBefore + s.runs;
      total += s.runsBefore + s.total;
      failures += s.failures;
      if (s.detail?.phase === 'shrinking') detail = s.detail;
    }
    options.onProgress?.(runs, total, failures, detail);
  };

  await new Promise<void>((resolveAll) => {
    let live = 0;
    const stop = (slot: Slot): void => {
      const wk = slot.worker;
      if (!wk) return;
      slot.worker = undefined;
      live--;
      void wk.terminate();
    };
    const settleIfDone = (): void => {
      if (live > 0) return;
      clearInterval(timer);
      resolveAll();
    };
    const fatal = (): void => {
      for (const s of slots) stop(s);
      settleIfDone();
    };
    const noteFailure = (r: CheckResult): void => {
      if (r.ok || r.property === 'fault-coverage') return;
      const fromCorpus = r.runs === r.corpusReplayed;
      firstFailure = Math.min(firstFailure, fromCorpus ? -1 : r.failedAtRun - 1);
      for (const s of slots) {
        if (!s.worker || s.recording || s.failures > 0 || s.lastRunIndex === undefined || s.lastRunIndex <= firstFailure) continue;
        // runs of earlier incarnations are counted by their hang verdicts
        stoppedRuns += s.runs;
        stop(s);
      }
      settleIfDone();
    };
    const start = (slot: Slot, job: CheckJob): void => {
      live++;
      let worker: HarnessWorker;
      if (first !== undefined && slot.k === 0) {
        // the worker that loaded the module runs the first slot: its module is not loaded twice
        worker = first.worker;
        worker.postMessage({ type: 'run', job } satisfies WorkerCommand);
        first = undefined;
      } else worker = spawnWorker({ kind: 'check', job, current: slot.current.buffer as SharedArrayBuffer });
      slot.worker = worker;
      slot.job = job;
      // loading tsx and the user's module is not a stuck scenario: the watchdog starts after it
      slot.lastBeat = Date.now() + LOAD_GRACE_MS;
      slot.busyAtBeat = worker.busyMs();
      worker.on('message', (m: WorkerMessage) => {
        if (slot.worker !== worker) return;
        if (!slot.recording) {
          slot.lastBeat = Date.now();
          slot.busyAtBeat = worker.busyMs();
        }
        switch (m.type) {
          case 'task':
            slot.labels.set(m.id, m.label);
            break;
          case 'beat':
            break;
          case 'sim':
            slot.lastScenario = m.scenario as Scenario;
            if (m.runIndex !== undefined) slot.lastRunIndex = m.runIndex;
            if (m.runIndex !== undefined && m.runIndex > firstFailure) {
              stoppedRuns += slot.runs;
              stop(slot);
              settleIfDone();
            }
            break;
          case 'progress':
            // the first failure: the generated run just made (its progress comes before shrinking)
            if (m.failures > 0 && slot.failures === 0 && slot.failedRun === undefined && m.phase === 'runs') slot.failedRun = slot.lastRunIndex;
            slot.runs = m.runs;
            slot.total = m.total;
            slot.failures = m.failures;
            slot.phase = m.phase;
            slot.detail = m.detail;
            report();
            break;
          case 'result': {
            const result = slot.shrinkHang ? withShrinkHang(m.result as CheckResult, slot.shrinkHang.hang, slot.shrinkHang.runsBefore) : (m.result as CheckResult);
            results.push(result);
            slot.reported = result;
            noteFailure(result);
            if (m.timelines) {
              // the check is over: a replay records the report's timelines, with the loading grace
              slot.recording = true;
              slot.lastBeat = Date.now() + LOAD_GRACE_MS;
              slot.busyAtBeat = slot.worker?.busyMs();
              break;
            }
            stop(slot);
            settleIfDone();
            break;
          }
          case 'timelines':
            if (slot.reported) timelines.set(slot.reported, m.timelines);
            stop(slot);
            settleIfDone();
            break;
          case 'importing':
          case 'opened':
          case 'planned':
          case 'thread':
            break;
          case 'error':
            if (m.usage) usage ??= new UsageError(m.message, m.detail !== undefined ? { detail: m.detail } : {});
            else crash ??= new Error(`steadystate check: a worker thread failed: ${m.message}`);
            fatal();
            break;
        }
      });
      worker.on('error', (err) => {
        if (slot.worker !== worker) return;
        crash ??= new Error(`steadystate check: a worker thread crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        fatal();
      });
      worker.on('exit', () => {
        if (slot.worker !== worker) return;
        crash ??= new Error('steadystate check: a worker thread exited before reporting a result');
        fatal();
      });
    };

    const timer = setInterval(() => {
      const now = Date.now();
      for (const slot of slots) {
        if (!slot.worker || !stalledFor(now - slot.lastBeat, busySince(slot.worker, slot.busyAtBeat), options.watchdogMs)) continue;
        if (slot.recording) {
          // a replay for the report's timelines that does not end: the report goes without them
          stop(slot);
          continue;
        }
        // Where it hung: while shrinking a failure the slot already reported (its check was over),
        // in a corpus replay (no generated run started yet), or in generated run `lastRunIndex`.
        const shrinking = slot.failures > 0 || slot.phase === 'shrinking';
        // systematic plans have no run index to resume after: the hang is the verdict
        const systematic = slot.job.search === 'systematic';
        const inCorpus = !shrinking && !systematic && slot.lastRunIndex === undefined;
        const runIndex = shrinking || inCorpus ? undefined : slot.lastRunIndex;
        const hungCounts = shrinking ? 0 : 1;
        const hang = hangFailure(slot, now - slot.lastBeat, options.watchdogMs, runIndex, slot.runs + hungCounts, hangSite({ shrinking, systematic, inCorpus, runIndex, runs: slot.runs, rerunOf: slot.shrinkHang !== undefined ? slot.failedRun : undefined }));
        // a hang while shrinking a failure found in a generated run: that failure ran to its verdict
        // and is the check's, so the slot runs it again unshrunk (once; a second hang is the verdict)
        const retry = shrinking && slot.shrinkHang === undefined ? unshrunkRetry(slot.job, slot.failedRun) : undefined;
        if (retry) {
          // the failing run is made again by the new worker; the runs before it were this one's
          slot.shrinkHang = { hang, runsBefore: Math.max(0, slot.runs - 1) };
          slot.runsBefore += Math.max(0, slot.runs - 1);
          slot.runs = 0;
          slot.total = 0;
          slot.failures = 0;
          stop(slot);
          start(slot, retry);
          report();
          continue;
        }
        hangs.push(hang);
        slot.runsBefore += slot.runs + hungCounts;
        const doneInCorpus = slot.runs;
        slot.runs = 0;
        slot.total = 0;
        stop(slot);
        if (systematic) {
          settleIfDone();
          continue;
        }
        // the rest of this slot's runs, after the one that hung
        if (inCorpus) start(slot, { ...slot.job, corpus: (slot.job.corpus ?? []).slice(doneInCorpus + 1), corpusNames: (slot.job.corpusNames ?? []).slice(doneInCorpus + 1) });
        else if (runIndex !== undefined) start(slot, { ...slot.job, corpus: [], corpusNames: [], resumeAt: runIndex + 1, hungRuns: [...(slot.job.hungRuns ?? []), runIndex] });
        report();
      }
      settleIfDone();
    }, Math.min(250, Math.max(20, Math.floor(options.watchdogMs / 4))));

    for (const s of slots) start(s, s.job);
  });

  if (usage) throw usage;
  if (crash) throw crash;
  // slots stopped early still ran their completed runs
  const merged = mergeCheckResults([...results, ...hangs], job.shard);
  const picked = merged.ok ? undefined : results.find((r) => !r.ok && r.scenario === merged.scenario);
  return { result: { ...merged, runs: merged.runs + stoppedRuns }, timelines: (picked && timelines.get(picked)) ?? { objects: [], converged: null } };
}

/**
 * Where a check hung, as its watchdog verdict names it: a shrinking candidate, a systematic plan,
 * a corpus scenario, a generated run, or the failing run made again unshrunk after its shrinking
 * had hung (`rerunOf`: W-2's retry; that second hang was worded as a shrinking candidate).
 * @internal
 */
export function hangSite(o: { shrinking: boolean; systematic: boolean; inCorpus: boolean; runIndex: number | undefined; runs: number; rerunOf: number | undefined }): string {
  if (o.rerunOf !== undefined) return `run ${o.rerunOf + 1} (made again, unshrunk, after its shrinking hung)`;
  if (o.shrinking) return 'a shrinking candidate';
  if (o.systematic) return `systematic plan ${o.runs + 1}`;
  if (o.inCorpus) return `corpus scenario ${o.runs + 1}`;
  return `run ${o.runIndex! + 1}`;
}

/**
 * The job that reports a failure whose shrinking the watchdog ended: the slot's failing generated
 * run again, with no shrinking budget, so the failure found is reported as found (h50, W-2: a slow
 * shrinking candidate of a hosted program's fight was terminated, its hang replaced the real
 * failure, and a program's watchdog verdict cannot be replayed). Undefined when there is no such
 * run (a failure of the corpus, systematic plans): the hang is the verdict, as before.
 * @internal
 */
export function unshrunkRetry(job: CheckJob, failedRun: number | undefined): CheckJob | undefined {
  if (failedRun === undefined || job.search === 'systematic') return undefined;
  return { ...job, corpus: [], corpusNames: [], resumeAt: failedRun, shrinkTimeLimitMs: 1 };
}

/**
 * The result of an {@link unshrunkRetry}: its failure, saying why it is not shrunk, with the runs
 * the terminated worker made before it (`runsBefore`); the hang when the rerun did not fail.
 * @internal
 */
export function withShrinkHang(result: CheckResult, hang: CheckFailed, runsBefore: number): CheckResult {
  if (result.ok || result.property === 'watchdog' || result.property === 'fault-coverage') return hang;
  const explanation = `${result.explanation}\nNot shrunk: while shrinking this failure, ${hang.summary}. The failure is reported as found in run ${result.failedAtRun}; the watchdog ends a shrinking candidate that goes without a simulation step for --watchdog ms of wall time, a slow one on a loaded host as well as a hung one.`;
  return { ...result, runs: result.runs + runsBefore, explanation };
}

/** Busy ms of a worker's thread since a reading `before` ({@link HarnessWorker.busyMs}), or undefined when either is unknown. */
function busySince(worker: HarnessWorker, before: number | undefined): number | undefined {
  const now = worker.busyMs();
  return now === undefined || before === undefined ? undefined : now - before;
}

/** The verdict for a scenario whose worker had to be terminated. */
function hangFailure(slot: Slot, stalledMs: number, watchdogMs: number, runIndex: number | undefined, runs: number, where: string): CheckFailed {
  const job = slot.job;
  const label = slot.labels.get(Atomics.load(slot.current, 0));
  const task = label === undefined ? undefined : describeTask(label);
  const scenario: Scenario = slot.lastScenario ?? { seed: job.seed, controllers: [], initialObjects: [], workload: [], faults: { events: [], background: [] } };
  const seconds = (stalledMs / 1000).toFixed(1);
  return {
    ok: false,
    controller: scenario.controllers[0]?.name ?? job.exportName,
    runs,
    seed: job.seed,
    properties: job.properties ?? [],
    faults: job.faults ?? [],
    coverage: [],
    stats: { convergenceLatencyMs: null, reconcilesPerObject: 0, storeWritesPerObject: 0, peakDownstreamQps: 0, reconciles: 0 },
    corpusReplayed: 0,
    determinismChecked: 0,
    property: 'watchdog',
    summary: `${task ? `${task}, in ${where},` : where} never returned control: its worker thread was stuck for ${seconds} s of wall time (a synchronous loop, a loop on \`await null\`, or a blocking call) and was terminated`,
    explanation: `Let: worker ${slot.k + 1} start ${where} (scenario seed ${scenario.seed}, ${scenario.faults.events.length} fault events)${task ? `, and ${task} be the last task it started` : ''}. Then: no simulation step happened for ${seconds} s of wall time, longer than the watchdog allows (--watchdog ${watchdogMs} ms). Simulated time cannot preempt code that never yields, so ${task ?? 'a reconcile (or an environment actor)'} is looping synchronously or on microtasks it awaits (\`while (!done) {}\`, \`for (;;) await null\`), or blocking on synchronous I/O (a busy-wait, a while loop whose exit depends on time passing, Atomics.wait, execSync). Make the loop await the simulation (ctx.clock.sleep, a requeue) or bound it. The reproduction holds the scenario; steadystate replay runs it under the same watchdog.`,
    evidence: { stalledMs: Math.round(stalledMs), worker: slot.k + 1, runNumber: runIndex !== undefined ? runIndex + 1 : null, task: task ?? null },
    scenario,
    originalScenario: scenario,
    path: '',
    failedAtRun: runIndex !== undefined ? runIndex + 1 : 0,
    shrinks: 0,
    run: emptyRun(scenario),
    determinism: { ok: true, hashes: ['', ''], explanation: 'not checked: the scenario never finished' },
  };
}

/** A run record for a scenario that never finished: nothing was recorded. */
export function emptyRun(scenario: Scenario): RunRecord {
  return {
    scenario,
    controllers: scenario.controllers.map((c) => c.name),
    primaryKinds: [],
    trace: [],
    writes: [],
    requests: [],
    settledObjects: [],
    finalObjects: [],
    probes: {},
    timing: { faultWindowEnd: 0, lastActionAt: 0, settleStart: 0, tailStart: 0, end: 0 },
    blocked: [],
    downstream: null,
    hash: '',
  };
}

/**
 * Simulates one scenario in a worker thread under the watchdog: replays a reproduction of a
 * scenario that hung without hanging this thread.
 * @returns the trace hash, or how long it was stuck when the watchdog fired
 * @internal
 */
export async function simulateInWorker(module: string, exportName: string, scenario: Scenario, watchdogMs: number): Promise<{ hung: false; hash: string } | { hung: true; stalledMs: number }> {
  const worker = spawnWorker({ kind: 'simulate', module, exportName, scenario });
  return new Promise((resolve, reject) => {
    let started = Number.POSITIVE_INFINITY;
    let busyAtStart: number | undefined;
    const timer = setInterval(() => {
      const stalled = Date.now() - started;
      if (!stalledFor(stalled, busySince(worker, busyAtStart), watchdogMs)) return;
      clearInterval(timer);
      void worker.terminate();
      resolve({ hung: true, stalledMs: stalled });
    }, Math.min(250, Math.max(20, Math.floor(watchdogMs / 4))));
    const end = (): void => {
      clearInterval(timer);
      void worker.terminate();
    };
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'sim') {
        started = Date.now();
        busyAtStart = worker.busyMs();
      }
      else if (m.type === 'result') {
        end();
        resolve({ hung: false, hash: (m.result as { hash: string }).hash });
      } else if (m.type === 'error') {
        end();
        reject(m.usage ? new UsageError(m.message) : new Error(`steadystate replay: the worker thread failed: ${m.message}`));
      }
    });
    worker.on('error', (err) => {
      end();
      reject(err);
    });
  });
}

/**
 * A worker thread and the channel the harness talks to it over: a MessagePort of its own, handed
 * to worker.ts in `workerData` and taken out of it before the checked code loads. The thread's
 * `parentPort` is the checked code's to reach too: a message it posted there (a forged `result`,
 * `{ ok: true }`) would have been read as the verdict, and a command it emitted on it run as the
 * pool's. Nothing but worker.ts holds the other end of this one; what arrives on `parentPort` is
 * ignored. Emits `message` (a {@link WorkerMessage}), `error` and `exit` as a Worker does, the
 * messages the thread posted before it ended first.
 * @internal
 */
export class HarnessWorker extends EventEmitter {
  /** The thread's kernel thread id, once it said (Linux): {@link busyMs} then leaves out the time it was starved. */
  private tid: number | undefined;
  private starved = 0;

  constructor(
    private readonly thread: Worker,
    private readonly port: MessagePort,
  ) {
    super();
    port.on('message', (m: WorkerMessage) => {
      if (m.type === 'thread') this.tid = m.tid;
      this.emit('message', m);
    });
    thread.on('error', (err) => this.emit('error', err));
    thread.on('exit', (code) => {
      // a result posted right before the thread ended may still be queued on the port
      for (let r = receiveMessageOnPort(port); r !== undefined; r = receiveMessageOnPort(port)) this.emit('message', r.message as WorkerMessage);
      port.close();
      this.emit('exit', code);
    });
  }

  postMessage(command: WorkerCommand): void {
    this.port.postMessage(command);
  }

  /**
   * Wall-clock ms, cumulative, the thread has spent stuck-able: its event loop running code (not
   * waiting for I/O, timers or messages: libuv's loop metrics, read from this thread, which count
   * a wait still in progress as idle), less the time it was ready to run but had no CPU (Linux's
   * run-queue wait in `/proc/self/task/TID/schedstat`; a loaded host starves a thread that is
   * compiling a module graph, which is not stuck). Undefined when it cannot be told (the thread
   * has ended). A loop or a blocking call (Atomics.wait, execSync) counts all its time.
   */
  busyMs(): number | undefined {
    let active: number;
    try {
      active = this.thread.performance.eventLoopUtilization().active;
    } catch {
      return undefined;
    }
    if (!Number.isFinite(active)) return undefined;
    return active - this.starvedMs();
  }

  /** Ms the thread waited for a CPU (run-queue wait), cumulative: the last reading where it cannot be read now (0 before any). */
  private starvedMs(): number {
    if (this.tid === undefined) return this.starved;
    try {
      const waited = Number(readFileSync(`/proc/self/task/${this.tid}/schedstat`, 'utf8').split(' ')[1]);
      if (Number.isFinite(waited)) this.starved = waited / 1e6;
    } catch {
      // the thread has ended, or no schedstat here: the last reading stands
    }
    return this.starved;
  }

  terminate(): Promise<number> {
    return this.thread.terminate();
  }
}

/**
 * A worker thread running `worker.ts`, imported with the same extension as this file, so it works
 * from the sources (.ts) and from a build (.js). From the sources the thread registers tsx first
 * (the entry is TypeScript); from a build it loads steadystate's JavaScript without tsx's loader
 * hooks (a round trip to the loader thread per module, about half the thread's start-up) and
 * load-module.ts registers tsx before the user's module, as in the main thread.
 */
function spawnWorker(input: WorkerInput): HarnessWorker {
  const self = import.meta.url;
  const fromSources = self.endsWith('.ts');
  const entry = JSON.stringify(new URL(fromSources ? './worker.ts' : './worker.js', self).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const code = fromSources ? `import(${tsx}).then((m) => { m.register(); globalThis[Symbol.for('steadystate.tsx-registered')] = true; return import(${entry}); });` : `import(${entry});`;
  const { port1, port2 } = new MessageChannel();
  const thread = new Worker(code, { eval: true, workerData: { ...input, port: port2 }, transferList: [port2] });
  return new HarnessWorker(thread, port1);
}
