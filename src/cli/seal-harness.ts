/**
 * Freezes steadystate's own classes (every exported class of src/, properties/ and faults/: its
 * prototype and its constructor) before the checked code loads: code under test that patched one
 * at import (`ObjectStore.prototype.record` dropping its writes, `ScenarioRunner.prototype.judgeRun`)
 * would pick its own verdict through the public exports or a deep import (red team rt42 F4).
 * The CLI seals before it imports a module (load-module.ts, in a worker and in the main thread),
 * steadystate/vitest when it loads; unit tests, which import the classes directly, may still
 * patch them. test/architecture-sealed.test.ts checks that every exported class is listed here.
 * @packageDocumentation
 */
import { ElectionScan } from '../../properties/_internals/election.js';
import { Declarations, PendingRetries } from '../../properties/_internals/esr.js';
import { FightScan } from '../../properties/_internals/fight-scan.js';
import { FlipFlopScan } from '../../properties/_internals/flip-flop.js';
import { Leadership } from '../../properties/_internals/leadership.js';
import { MaskTally } from '../../properties/_internals/masks.js';
import { GrowScan, StampScan } from '../../properties/no-hot-loop.js';
import { UsageError } from './usage-error.js';
import { HarnessWorker } from './worker-pool.js';
import { UnhandledRequestError } from '../downstream/errors.js';
import { NetworkRefusedError } from '../downstream/net-guard.js';
import { SimHeaders, SimResponse } from '../downstream/sim-response.js';
import { ObjectPicker } from '../environment/_internals/select.js';
import { CoverageTracker } from '../harness/coverage.js';
import { EnvironmentSeams } from '../harness/environment.js';
import { BehaviourObserver, CoverageMap } from '../harness/guided/behaviour-coverage.js';
import { ScenarioPool } from '../harness/guided/pool.js';
import { ScenarioRunner } from '../harness/scenario-runner.js';
import { ScenarioError } from '../harness/simulate.js';
import { StatsCollector } from '../harness/stats.js';
import { SystematicSearch } from '../harness/systematic-strategies/search.js';
import { DerivationBuilder } from '../harness/systematic-strategies/strategy.js';
import { TwinRunner, LearnedCache } from '../harness/twin.js';
import { CrashLoopBackoff } from '../host/crash-loop-backoff.js';
import { ProcessExitSignal } from '../host/exit-signal.js';
import { TextResponse } from '../kube-rest/json-response.js';
import { FieldManagers } from '../kube-rest/managed-fields.js';
import { ResourceRegistry } from '../kube-rest/resource-registry.js';
import { KubeStatusError, UnknownStatusError } from '../kube-rest/status.js';
import { PatchError } from '../kube-rest/strategic-merge-patch.js';
import { ReproductionFileError } from '../report/json.js';
import { ReportWriteError } from '../report/write-atomic.js';
import { CrashedError, ConnectionError } from '../runtime/controller-client.js';
import { ControllerInstance } from '../runtime/controller.js';
import { Informer } from '../runtime/informer.js';
import { LeaderElector } from '../runtime/leader-election.js';
import { Manager } from '../runtime/manager.js';
import { Seams } from '../runtime/seams.js';
import { WorkQueue } from '../runtime/workqueue.js';
import { VirtualClock } from '../sim/clock.js';
import { Kernel } from '../sim/kernel.js';
import { Scheduler } from '../sim/scheduler.js';
import { Trace } from '../sim/trace.js';
import { StoreError, ConflictError, NotFoundError, AlreadyExistsError, GoneError, InvalidError, ServerError, TooManyRequestsError } from '../store/errors.js';
import { RequestTooLargeError } from '../store/storage-size.js';
import { ServiceAllocations } from '../store/defaults.js';
import { GarbageCollector } from '../store/garbage-collector.js';
import { NamespaceLifecycle } from '../store/namespace-lifecycle.js';
import { KeyOrderedMap } from '../store/key-ordered-map.js';
import { ObjectStore } from '../store/store.js';
import { WatchHub } from '../store/watch.js';
import { StoryFileError } from '../story/story-file-error.js';

/** Every class {@link sealHarness} freezes. @internal */
export const SEALED_CLASSES: readonly (abstract new (...args: never[]) => unknown)[] = [
  Declarations,
  PendingRetries,
  ElectionScan,
  Leadership,
  MaskTally,
  StampScan,
  GrowScan,
  FightScan,
  FlipFlopScan,
  UsageError,
  HarnessWorker,
  UnhandledRequestError,
  NetworkRefusedError,
  SimHeaders,
  SimResponse,
  ObjectPicker,
  CoverageTracker,
  EnvironmentSeams,
  BehaviourObserver,
  CoverageMap,
  ScenarioPool,
  ScenarioRunner,
  ScenarioError,
  StatsCollector,
  SystematicSearch,
  DerivationBuilder,
  TwinRunner,
  LearnedCache,
  CrashLoopBackoff,
  ProcessExitSignal,
  TextResponse,
  FieldManagers,
  ResourceRegistry,
  KubeStatusError,
  UnknownStatusError,
  PatchError,
  ReproductionFileError,
  ReportWriteError,
  CrashedError,
  ConnectionError,
  ControllerInstance,
  Informer,
  LeaderElector,
  Manager,
  Seams,
  WorkQueue,
  VirtualClock,
  Kernel,
  Scheduler,
  Trace,
  StoreError,
  ConflictError,
  NotFoundError,
  AlreadyExistsError,
  GoneError,
  InvalidError,
  ServerError,
  TooManyRequestsError,
  RequestTooLargeError,
  ServiceAllocations,
  GarbageCollector,
  NamespaceLifecycle,
  KeyOrderedMap,
  ObjectStore,
  WatchHub,
  StoryFileError,
];

/** Freezes every class of {@link SEALED_CLASSES} (idempotent). @internal */
export function sealHarness(): void {
  for (const C of SEALED_CLASSES) {
    Object.freeze(C.prototype);
    Object.freeze(C);
  }
}
