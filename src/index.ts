/**
 * steadystate: property-based fault-injection testing for reconcilers.
 * The public API, listed explicitly (fast-check style).
 * @packageDocumentation
 */

// controllers
export { defineController, isControllerDefinition } from './runtime/define-controller.js';
export type { ControllerDefinition, ControllerOptions, WatchMapContext, WatchMapping } from './runtime/define-controller.js';
export type { ReconcileContext, ReconcileResult, Reconciler, ReconcileClock, ReconcileLogger } from './runtime/reconcile.js';
export type { Client, KeyOrRef, ReadOptions, PatchOptions } from './runtime/client.js';
export type { SimFetch, FetchResponse } from './runtime/env.js';
export { CrashedError, ConnectionError } from './runtime/controller-client.js';
export type { RateLimiterOptions } from './runtime/rate-limiter.js';

// store
export { ObjectStore } from './store/store.js';
export type { WriteRecord, WriteVerb, WatchEvent, StoreOptions, ListOptions, DeleteOptions, PodBinding } from './store/store.js';
export type { PodEviction } from './store/eviction.js';
export type { Scale } from './store/scale.js';
export { keyOf, parseKey, virtualTimestamp, fromVirtualTimestamp } from './store/object.js';
export type { StoredObject, NewObject, ObjectMeta, OwnerReference, ObjectRef, Json, JsonObject, TopLevelFields } from './store/object.js';
export { StoreError, ConflictError, NotFoundError, AlreadyExistsError, GoneError, InvalidError, ServerError, TooManyRequestsError, isStoreError } from './store/errors.js';
export { RequestTooLargeError } from './store/storage-size.js';
export type { FieldError, ValidationOptions } from './store/immutability.js';
export type { StoreErrorReason } from './store/errors.js';
export type { LabelSelector } from './store/selector.js';

// running scenarios
export { simulate } from './simulate.js';
export { ScenarioError } from './harness/simulate.js';
export type { SimulateOptions, SimulationResult, RunDownstream } from './harness/simulate.js';
export { parseScenario, USER_ACTION_TYPES, MAX_SCENARIO_MS } from './harness/scenario.js';
export type { Scenario, ScenarioOptions, WorkloadAction, UserActionType, ControllerRef, EnvironmentRef } from './harness/scenario.js';
export { USER_RETRY } from './harness/user-actions.js';
export type { FaultPlan, FaultEvent, BackgroundFault } from './harness/fault-plan.js';
export type { World, WorldView, ApiRequest, RunPhase } from './harness/world.js';
export type { TraceEntry, TraceType } from './sim/trace.js';
export { firstDivergence } from './sim/trace.js';

// faults
export { defineFault } from './harness/fault.js';
export type { FaultModule, FaultSeam, FaultGenContext, FaultInstallContext, FaultInstallPlan } from './harness/fault.js';
export { faults, allFaults } from '../faults/index.js';
export {
  eventLoss,
  watchEventLoss,
  duplication,
  reordering,
  delay,
  watchDisconnect,
  staleSnapshot,
  apiConflict,
  apiError,
  flakyDownstream,
  crashRestart,
  secondReplica,
  drift,
  recreation,
  listOrder,
  coalescing,
  environmentPodNeverReady,
  environmentCrashLoopingPod,
  environmentPodEviction,
  environmentPvcNeverBinds,
  environmentSlowRollout,
  driftWith,
} from '../faults/index.js';
export type { DriftOptions } from '../faults/index.js';

// properties
export { defineProperty, nothingToJudge } from './harness/property.js';
export type { Property, PropertyFactory, PropertyDefinition, Verdict, RunRecord, LearnedMasks, BenignRuns, Probe, ProbeResult, ProbeSample, RecordedRequest } from './harness/property.js';
export type { NeverExitsOptions } from '../properties/never-exits.js';
export type { RunEscape, RealTimerUse, ExitKind } from './host/host-context.js';
export { properties, allProperties, defaultProperties, DEFAULT_HISTORY } from '../properties/index.js';
export type { HistorySelector } from '../properties/index.js';
export {
  neverExits,
  convergence,
  deletionCompletes,
  specStatusOwnership,
  noFighting,
  noHotLoop,
  idempotence,
  boundedDownstreamQps,
  noDuplicateSideEffects,
  noExtraDestructiveActions,
  safetyInvariants,
  responsiveness,
  recovery,
  statusTruthfulness,
  sameEndState,
  honoursRetryAfter,
} from '../properties/index.js';

// environment (SPEC §2.2)
export type { EnvironmentActor, EnvironmentStepInfo, EnvironmentDecision, EnvironmentHooks } from './harness/environment.js';
export { EnvironmentSeams, environmentSeams } from './harness/environment.js';
export { defineEnvironmentActor } from './environment/define-environment-actor.js';
export type { EnvironmentActorOptions, EnvironmentActorDefinition, EnvironmentApi, EnvironmentSyncContext, EnvironmentStartContext, EnvironmentSyncResult, EnvironmentLoop, EnvironmentWatch, EnvironmentReader, EnvironmentListOptions } from './environment/define-environment-actor.js';
export { environment, allEnvironmentActors, podLifecycle, pvcBinding, deployment, statefulSet, job, leaseHolder, disruption, cluster } from './environment/index.js';
export { PLACEMENT_FIELDS } from './environment/pod-lifecycle.js';
export type { PodLifecycleParams } from './environment/pod-lifecycle.js';
export type { PvcBindingParams } from './environment/pvc-binding.js';
export type { DeploymentParams } from './environment/deployment.js';
export type { StatefulSetParams } from './environment/stateful-set.js';
export type { JobParams } from './environment/job.js';
export type { DisruptionParams } from './environment/disruption.js';
export type { LeaseHolderParams } from './environment/lease-holder.js';
export { workloadReady, WORKLOAD_KINDS } from './environment/workload-ready.js';

// downstream
export { fakeRestService } from './downstream/fake-rest-service.js';
export type { FakeRestService, FakeRestServiceOptions, RestResource, RestChange, RestEdit, OwnerGroup } from './downstream/fake-rest-service.js';
export type { CreateDownstreamOptions } from './downstream/intercept.js';
export type { FetchDecision, FetchInfo } from './downstream/fetch-decision.js';
export type { RequestRecord, RequestOutcome } from './downstream/request-log.js';
export type { SimResponse } from './downstream/sim-response.js';
export type { DownstreamState } from './downstream/run-downstream.js';
export { UnhandledRequestError } from './downstream/errors.js';
export { allowNetwork, NetworkRefusedError } from './downstream/net-guard.js';
export type { NetworkTarget, RefusedRequest } from './downstream/net-guard.js';

// checking, replaying and reporting (SPEC §6, §7)
export { check } from './check.js';
export type { CheckOptions, CheckProgress, CheckCorpus, EnvironmentUse } from './harness/check-options.js';
// stories: exact objects and timed actions, from code or Kubernetes YAML (SPEC §4)
export type { Story } from './harness/story.js';
export { loadStory, loadManifests } from './story/load-story.js';
export type { LoadStoryOptions } from './story/load-story.js';
export { parseStory } from './story/parse-story.js';
export type { ManifestReader } from './story/parse-story.js';
export { parseManifests } from './story/parse-manifests.js';
export { StoryFileError } from './story/story-file-error.js';
export type { CheckResult, CheckPassed, CheckFailed, CheckStats, FaultCoverage, DeterminismReport, BehaviourCoverageReport } from './harness/check-result.js';
export type { Shard } from './harness/shard.js';
export { inShard, shardSize, parseShard } from './harness/shard.js';
export { checkSystematic } from './check-systematic.js';
export type { SystematicOptions, SystematicResult, SystematicReport, SystematicStrategyReport, SystematicPlanCounts } from './harness/systematic.js';
export { ALL_STRATEGIES } from './harness/systematic-plans.js';
export type { SystematicStrategy } from './harness/systematic-plans.js';
export { minimize, concretize } from './harness/minimize.js';
export type { MinimizeOptions, MinimizeResult } from './harness/minimize.js';
export { checkDeterminism } from './harness/determinism.js';
export type { HostSourceProbe } from './harness/determinism.js';
export { twinScenario } from './harness/twin.js';

// arbitraries (fast-check): scenarios, workloads, fault plans, swarm
export { arbitraries } from './arbitrary/index.js';
export { scenario as scenarioArbitrary } from './arbitrary/scenario.js';
export { workload as workloadArbitrary, ALL_ACTION_TYPES } from './arbitrary/workload.js';
export { faultPlan as faultPlanArbitrary } from './arbitrary/fault-plan.js';
export { swarm as swarmArbitrary } from './arbitrary/swarm.js';
export type { ScenarioArbitraryOptions } from './arbitrary/scenario.js';
export type { ObjectTemplate, ResolvedObjectTemplate, WorkloadActionType, WorkloadArbitraryOptions } from './arbitrary/workload.js';
export type { FaultPlanArbitraryOptions } from './arbitrary/fault-plan.js';
export type { SwarmOptions } from './arbitrary/swarm.js';
export { replay } from './replay.js';
export type { ReplayOptions, ReplayResult } from './replay.js';
export { writeReports, reporters, allReportFormats, toReportModel, toReproductionFile, parseReproductionFile, ReproductionFileError, reproductionFormatVersion, toJunitReport, ReportWriteError, safeFileName } from './report/index.js';
export type { ReportFormat, Reporter, ReportersMap, ReporterOptionsMap, WriteReportsOptions, WrittenReports, ReportModel, PassedReportModel, FailedReportModel, ReportContext, ControllerSource, ReproductionFile, JunitCase, JunitSuite, JunitReport, ObjectTimeline } from './report/index.js';
export type { CodeDigest } from './report/code-digest.js';
export { loadCorpus, saveToCorpus } from './report/corpus.js';
export type { CorpusEntry, LoadedCorpus } from './report/corpus.js';

// Kubernetes REST API over the store, in-process (msw) and on loopback (SPEC §7)
export { createKubeApi } from './kube-rest/kube-api.js';
export type { KubeApi, KubeApiOptions } from './kube-rest/kube-api.js';
export { wallClockHost } from './kube-rest/kube-api-host.js';
export type { KubeApiHost } from './kube-rest/kube-api-host.js';
export type { KubeApiHooks, KubeRequestInfo, KubeRequestDecision, KubeVerb, HandleOptions } from './kube-rest/serve-context.js';
export type { KubeWatchEventInfo } from './kube-rest/watch-stream.js';
export { kubeRestHandlers, KUBE_BASE_URL } from './kube-rest/msw.js';
export type { KubeRestHandlersOptions } from './kube-rest/msw.js';
export { startLoopback } from './kube-rest/loopback.js';
export type { LoopbackServer, LoopbackOptions } from './kube-rest/loopback.js';
export { kubeconfigFor } from './kube-rest/kubeconfig.js';
export type { KubeconfigOptions } from './kube-rest/kubeconfig.js';
export { kubeController } from './kube-rest/kube-controller.js';
export type { KubeControllerOptions, KubeProcessContext, KubeProcessStop } from './kube-rest/kube-controller.js';
export { defineProgram } from './kube-rest/define-program.js';
export type { ProgramOptions } from './kube-rest/define-program.js';
export type { RestartBackoffOptions } from './host/crash-loop-backoff.js';
export { ResourceRegistry } from './kube-rest/resource-registry.js';
export { builtinResources } from './kube-rest/builtin-resources.js';
export type { ResourceDefinition, ResolvedResource } from './kube-rest/resource-definition.js';
export type { StrategicMergeSchema } from './kube-rest/strategic-merge-patch.js';
export { kubeStatus } from './kube-rest/status.js';
export { KUBE_VERSION } from './kube-rest/discovery.js';
export type { StatusReason } from './kube-rest/status.js';
export type { ControllerProcess, ProcessHandle, ProcessReplica } from './runtime/controller-process.js';
