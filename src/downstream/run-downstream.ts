import type { Kernel, Task } from '../sim/kernel.js';
import type { World } from '../harness/world.js';
import type { RunDownstream } from '../harness/simulate.js';
import { createDownstream, type CreateDownstreamOptions } from './intercept.js';
import { installGlobalFetch } from './install-global-fetch.js';
import type { RefusedRequest } from './net-guard.js';
import { callerOf } from '../harness/isolation.js';
import { currentSandbox } from '../host/host-context.js';

/** What properties read about the fake services at the end of a run. @public */
export interface DownstreamState {
  services: {
    name: string;
    baseUrl: string;
    createdCount: number;
    resources: { id: string; collection: string; body: unknown }[];
    /** Groups of resources by owner (see `fakeRestService(...).byOwner()`). */
    byOwner: { collection: string; owner: string; count: number; ids: string[] }[];
    /** Every create, delete and out-of-band removal, in order (see `fakeRestService(...).history()`). */
    history: { op: 'create' | 'delete' | 'remove'; collection: string; id: string; body: unknown }[];
    /** Every edit of an existing resource that changed a field (see `fakeRestService(...).edits()`). */
    edits: { via: 'request' | 'out-of-band'; collection: string; id: string; fields: string[]; body: unknown }[];
  }[];
}

/**
 * Builds the downstream of one run inside a world: requests are decided by the world's fetch
 * seam (flaky-downstream faults), recorded in the trace, and the global `fetch` is routed into
 * the simulation for the run (restored by `dispose`, which simulate calls in `finally`).
 * @internal
 */
export function createRunDownstream(world: World, options: CreateDownstreamOptions): RunDownstream {
  const { kernel, seams, trace } = world;
  const ds = createDownstream(
    // methods, not arrow properties: under tsx every named arrow made per run costs a defineProperty
    {
      now() {
        return kernel.now();
      },
      after(ms, fn) {
        return kernel.after(ms, fn);
      },
      park(task, register) {
        return kernel.park(task, register);
      },
      touch() {
        kernel.touch();
      },
      external() {
        kernel.external();
      },
      decide(info) {
        return seams.hasFetchHooks ? seams.decideFetch(info) : { type: 'pass' };
      },
      onRecord(r) {
        trace.push({ ...r, t: r.tEnd, type: 'downstream:request', start: r.t });
      },
      onRefused(request, task) {
        recordRefused(world, request, callerOf(kernel, task));
      },
    },
    options,
  );
  world.downstreamServices = ds.services;
  // a hosted program's calls are its replica's; a reconcile's (a library calling the global fetch)
  // the controller's when it is the only task running: properties group requests and match
  // crashes by actor (honours-retry-after, no-duplicate-side-effects)
  const restore = installGlobalFetch(ds, () => currentSandbox()?.actor ?? actorOfRunningTask(kernel) ?? 'unknown');
  return {
    fetch(task: Task | undefined, actor: string, input: string | URL | Request, init?: RequestInit) {
      return ds.fetch(task, actor, input, init);
    },
    requests() {
      return [...ds.log].sort((a, b) => a.seq - b.seq);
    },
    state(): DownstreamState {
      return {
        services: ds.services.map((s) => ({
          name: s.name,
          baseUrl: s.baseUrl,
          createdCount: s.createdCount,
          resources: s.collections().flatMap((c) => s.resources(c).map((r) => ({ id: r.id, collection: c, body: r }))),
          byOwner: s.byOwner().map((g) => ({ collection: g.collection, owner: g.owner, count: g.resources.length, ids: g.resources.map((r) => r.id) })),
          history: s.history(),
          edits: s.edits(),
        })),
      };
    },
    dispose: restore,
  };
}

/**
 * Records a refused request in the run's trace (`network:refused`), which the isolation judge
 * turns into the verdict.
 * @internal
 */
export function recordRefused(world: World, request: RefusedRequest, caller: string | undefined): void {
  const { kernel, trace } = world;
  const entry = { t: kernel.now(), type: 'network:refused' as const, actor: caller ?? 'code outside any reconcile', via: request.via, target: request.target };
  trace.push(request.url !== undefined ? { ...entry, method: request.method, url: request.url } : entry);
  kernel.touch();
}

/** The controller actor of the one task running (a reconcile or watch map), if exactly one runs. */
function actorOfRunningTask(kernel: Kernel): string | undefined {
  const running = kernel.runnable();
  if (running.length !== 1) return undefined;
  const m = /^(?:reconcile|handler) (.+?\/\d+) /.exec(running[0]!.label);
  return m ? `controller:${m[1]}` : undefined;
}
