/**
 * steadystate: property-based fault-injection testing for reconcilers.
 * The public API, listed explicitly (fast-check style).
 * @packageDocumentation
 */

// controllers
export { defineController, isControllerDefinition } from './runtime/define-controller.js';
export type { ControllerDefinition, ControllerOptions, WatchMapping } from './runtime/define-controller.js';
export type { ReconcileContext, ReconcileResult, Reconciler, ReconcileClock, ReconcileLogger } from './runtime/reconcile.js';
export type { Client, KeyOrRef, ReadOptions, PatchOptions } from './runtime/client.js';
export type { SimFetch, FetchResponse } from './runtime/env.js';
export { CrashedError } from './runtime/controller-client.js';
export type { RateLimiterOptions } from './runtime/rate-limiter.js';

// store
export { ObjectStore } from './store/store.js';
export type { WriteRecord, WriteVerb, WatchEvent, StoreOptions, ListOptions, DeleteOptions } from './store/store.js';
export { keyOf, parseKey, virtualTimestamp } from './store/object.js';
export type { StoredObject, NewObject, ObjectMeta, OwnerReference, ObjectRef, Json, JsonObject } from './store/object.js';
export { StoreError, ConflictError, NotFoundError, AlreadyExistsError, GoneError, InvalidError, ServerError, isStoreError } from './store/errors.js';
export type { StoreErrorReason } from './store/errors.js';
export type { LabelSelector } from './store/selector.js';

// running scenarios
export { simulate } from './simulate.js';
export { ScenarioError } from './harness/simulate.js';
export type { SimulateOptions, SimulationResult, RunDownstream } from './harness/simulate.js';
export type { Scenario, ScenarioOptions, WorkloadAction, ControllerRef, EnvironmentRef } from './harness/scenario.js';
export type { FaultPlan, FaultEvent, BackgroundFault } from './harness/fault-plan.js';
export type { World, WorldView, RunPhase } from './harness/world.js';
export type { TraceEntry, TraceType } from './sim/trace.js';
export { firstDivergence } from './sim/trace.js';

// faults
export { defineFault } from './harness/fault.js';
export type { FaultModule, FaultSeam, FaultGenContext, FaultInstallContext, FaultInstallPlan } from './harness/fault.js';
export { faults, allFaults } from '../faults/index.js';

// properties
export { defineProperty } from './harness/property.js';
export type { Property, PropertyFactory, PropertyDefinition, Verdict, RunRecord, Probe, ProbeSample, RecordedRequest } from './harness/property.js';

// environment
export type { EnvironmentActor } from './harness/environment.js';

// downstream
export { fakeRestService } from './downstream/fake-rest-service.js';
export type { FakeRestService, FakeRestServiceOptions, RestResource, OwnerGroup } from './downstream/fake-rest-service.js';
export type { CreateDownstreamOptions } from './downstream/intercept.js';
export type { FetchDecision, FetchInfo } from './downstream/fetch-decision.js';
export type { RequestRecord, RequestOutcome } from './downstream/request-log.js';
export type { SimResponse } from './downstream/sim-response.js';
export type { DownstreamState } from './downstream/run-downstream.js';
export { UnhandledRequestError } from './downstream/errors.js';
