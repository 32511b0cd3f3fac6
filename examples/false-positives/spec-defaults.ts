import { ConflictError, defineController, properties, type JsonObject, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `Database` is defaulted by its own controller, as operators written before admission
 * webhooks (and many since) do: a missing `spec.storageGi` is filled in on the object itself,
 * then the controller renders a ConfigMap from the defaulted spec. Writing the primary's spec bumps
 * its generation, so `status.observedGeneration` must follow the controller's own writes as well
 * as the user's. The default is a merge patch of only the missing field with the resourceVersion
 * read (optimistic concurrency): a user's change made since the read wins, the patch gets 409 and
 * the next reconcile defaults what is still missing. A user's update that drops the defaulted field
 * (a full update with the declared spec) is defaulted again.
 *
 * The version is not defaulted into the spec: its default depends on the engine, and a default
 * written once stays when the user changes the engine a moment later, so the end would depend on
 * whether the controller saw the first engine before the change (an edge-triggered decision:
 * same-end-state caught exactly that in this case's first version, seed 2 run 23, the ADDED event
 * of a postgres Database delayed past the user's switch to mysql ended with mysql 8.4, the
 * fault-free run with mysql "16"). The engine's default version is resolved when rendering and
 * reported in `status.version`; that first version is the buggy twin.
 */
export const DATABASE = 'Database';
const DEFAULT_VERSION: Record<string, string> = { postgres: '16', mysql: '8.4' };
const DEFAULT_STORAGE_GI = 10;

interface DatabaseSpec {
  engine: string;
  version?: string;
  storageGi?: number;
}
interface DatabaseStatus {
  version?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

const defaultVersion = (engine: string): string => DEFAULT_VERSION[engine] ?? 'latest';

/** The spec fields to fill in (`version` too in the buggy twin), or undefined when none is missing. */
function defaultsFor(spec: DatabaseSpec, versionInSpec: boolean): JsonObject | undefined {
  const out: JsonObject = {};
  if (versionInSpec && spec.version === undefined) out['version'] = defaultVersion(spec.engine);
  if (spec.storageGi === undefined) out['storageGi'] = DEFAULT_STORAGE_GI;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `versionInSpec`: also write the engine's default version into the spec (the buggy twin). */
const reconciler = (versionInSpec: boolean) => async (ctx: ReconcileContext): Promise<void> => {
  const db = await ctx.client.tryGet<DatabaseSpec, DatabaseStatus>(DATABASE, ctx.key, { live: true });
  if (!db || db.metadata.deletionTimestamp !== undefined) return;
  const missing = defaultsFor(db.spec, versionInSpec);
  if (missing) {
    try {
      await ctx.client.patch(DATABASE, ctx.key, { metadata: { resourceVersion: db.metadata.resourceVersion }, spec: missing });
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
    // the write (or the user's change that beat it) brings the next event: render from that
    return;
  }
  const version = db.spec.version ?? defaultVersion(db.spec.engine);
  const config: StoredObject = await apply(ctx, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${db.metadata.name}-config`, namespace: db.metadata.namespace, ownerReferences: [controllerRef(db)] },
    data: { engine: db.spec.engine, version, storage: `${db.spec.storageGi ?? 0}Gi` },
  });
  const conditions = setCondition(db.status.conditions, { type: 'Ready', status: 'True', reason: 'Rendered', message: `config ${config.metadata.name}`, observedGeneration: db.metadata.generation }, ctx.clock.now());
  await writeStatus(ctx, db, { version, observedGeneration: db.metadata.generation, conditions });
};

const definition = { name: 'database-defaults', for: DATABASE, owns: ['ConfigMap'], leaderElection: true, resyncPeriodMs: RESYNC_MS };

export const databaseDefaultsController = defineController({ ...definition, reconcile: reconciler(false) });

/** Buggy twin: also defaults the version into the spec, from the engine it happens to see first. */
export const databaseDefaultsFromFirstEngine = defineController({ ...definition, reconcile: reconciler(true) });

export const specDefaults: FalsePositiveCase = {
  name: 'spec-defaults',
  description: "a Database's controller fills in a missing spec field on the object itself (optimistic merge patch of only that field), then renders a ConfigMap from the defaulted spec, resolving the engine's default version without writing it",
  controllers: [databaseDefaultsController],
  options: {
    objects: { kind: DATABASE, name: 'orders', spec: [{ engine: 'postgres' }, { engine: 'mysql', storageGi: 20 }, { engine: 'postgres', version: '15' }, { engine: 'mysql' }] },
  },
  properties: [...endStateProperties(), properties.specStatusOwnership({ allowSpecPaths: ['spec.version', 'spec.storageGi'] })],
  buggy: {
    controllers: [databaseDefaultsFromFirstEngine],
    caughtBy: ['same-end-state'],
    why: 'it writes the default version of the engine it sees first into the spec, so a user who switches the engine before the controller acted and one who switches it after end with different versions',
  },
};
