import { defineController, isStoreError, type ControllerDefinition, type JsonObject, type StoredObject } from '../../../src/index.js';
import { RESYNC_MS } from '../resync.js';
import { APP, POD, imageOf, ownerRefTo, podSpecFor, type AppSpec, type AppStatus, type PodSpec } from '../single-child/app.js';

/**
 * How long a create waits to be seen in the cache before the controller stops waiting (client-go's
 * ExpectationsTimeout is 5 minutes; the fixture's scenarios settle in 10 s).
 */
export const EXPECTATION_TTL_MS = 5_000;

/** What this replica knows of an App's Pod: its name, whether its cache has shown it, and since when it waits. */
export interface Expected {
  pod: string;
  seen: boolean;
  at: number;
}

/** The replica's in-memory state: App uid → its Pod as this incarnation knows it (client-go's ControllerExpectations). */
export interface ExpectationsState {
  pods: Map<string, Expected>;
}

/**
 * The single-child fixture the way ReplicaSets are kept: Pods get server-chosen names
 * (`generateName`), so "not in my cache yet" must not mean "absent", or a cache that lags behind
 * the controller's own create makes it create again. An expectations cache in `ctx.state` (fresh
 * per replica incarnation, lost on a crash) remembers each create until the cache shows it.
 * Losing it on a crash is safe because a new incarnation, which knows nothing yet, asks the API
 * server before its first create for an App (its informers may have listed from a lagging
 * replica); an expectation not met in time (a lost watch event) is settled the same way. An extra
 * Pod that still appears (a create whose response was lost) is deleted, keeping the one named in
 * status. `expectations: false` makes the same controller trusting its cache alone: a lagging
 * cache then makes it create Pods again and again (deleting them later).
 */
export function singleChildWithExpectations(name: string, options: { expectations: boolean } = { expectations: true }): ControllerDefinition {
  return defineController({
    name,
    for: APP,
    owns: [POD],
    resyncPeriodMs: RESYNC_MS,
    state: (): ExpectationsState => ({ pods: new Map() }),
    async reconcile(ctx) {
      const app = await ctx.client.tryGet<AppSpec, AppStatus>(APP, ctx.key);
      if (!app || app.metadata.deletionTimestamp !== undefined) return undefined;
      const uid = app.metadata.uid;
      const owned = async (live: boolean) => (await ctx.client.list<PodSpec>(POD, { namespace: app.metadata.namespace, live })).filter((p) => p.metadata.ownerReferences.some((r) => r.controller && r.uid === uid));
      const cached = await owned(false);
      let pods = cached;
      let known = ctx.state.pods.get(uid);
      if (options.expectations) {
        if (known !== undefined && !known.seen && cached.some((p) => p.metadata.name === known!.pod)) known.seen = true;
        if (known !== undefined && !known.seen) {
          const age = ctx.clock.now() - known.at;
          // our own create is not in the cache yet: wait for its event rather than create again
          if (age < EXPECTATION_TTL_MS) return { requeueAfter: EXPECTATION_TTL_MS - age };
          // it never came (a lost event, or the Pod went at once): ask the API server, not the cache
          pods = await owned(true);
          if (pods.some((p) => p.metadata.name === known!.pod)) {
            known.at = ctx.clock.now();
          } else {
            ctx.state.pods.delete(uid);
            known = undefined;
          }
        } else if (known === undefined && keep(cached, app.status.child) === undefined) {
          // this incarnation has seen no Pod of this App: its cache may come from a lagging list
          // (a restart), so the server has the last word before a create
          pods = await owned(true);
        }
      }
      let pod = keep(pods, app.status.child);
      if (pod === undefined) {
        pod = await ctx.client.create<PodSpec>({
          kind: POD,
          metadata: { generateName: `${app.metadata.name}-`, namespace: app.metadata.namespace, ownerReferences: [ownerRefTo(app)] },
          spec: podSpecFor(app.spec.image),
        });
        if (options.expectations) ctx.state.pods.set(uid, { pod: pod.metadata.name, seen: false, at: ctx.clock.now() });
      } else {
        const name = pod.metadata.name;
        if (options.expectations && known?.pod !== name) ctx.state.pods.set(uid, { pod: name, seen: cached.some((p) => p.metadata.name === name), at: ctx.clock.now() });
        if (imageOf(pod) !== app.spec.image) await ctx.client.patch(POD, { namespace: app.metadata.namespace, name }, { spec: podSpecFor(app.spec.image) as unknown as JsonObject });
      }
      for (const extra of pods) {
        if (extra.metadata.name === pod.metadata.name || extra.metadata.deletionTimestamp !== undefined) continue;
        try {
          await ctx.client.delete(POD, { namespace: extra.metadata.namespace, name: extra.metadata.name });
        } catch (err) {
          if (!isStoreError(err, 'NotFound')) throw err;
        }
      }
      if (app.status.child !== pod.metadata.name || app.status.observedGeneration !== app.metadata.generation) {
        await ctx.client.patchStatus(APP, ctx.key, { status: { child: pod.metadata.name, observedGeneration: app.metadata.generation } });
      }
      return undefined;
    },
  });
}

/** The Pod to keep: the one status names, else the oldest (by creation, then name); never one being deleted. */
function keep(pods: StoredObject<PodSpec>[], named: string | undefined): StoredObject<PodSpec> | undefined {
  const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
  const inStatus = live.find((p) => p.metadata.name === named);
  if (inStatus) return inStatus;
  return [...live].sort((a, b) => (a.metadata.creationTimestamp < b.metadata.creationTimestamp ? -1 : a.metadata.creationTimestamp > b.metadata.creationTimestamp ? 1 : a.metadata.name < b.metadata.name ? -1 : 1))[0];
}

/** Correct: expectations kept in `ctx.state`. */
export const singleChildExpectations = singleChildWithExpectations('single-child-expectations');
