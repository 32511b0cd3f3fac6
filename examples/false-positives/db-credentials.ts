import { createHash } from 'node:crypto';
import { AlreadyExistsError, defineController, job, podLifecycle, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { jobComplete, jobFailed } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `DbUser` is a database login for an application, as database operators (CloudNativePG's
 * managed roles, the MySQL and Postgres operators' users) make them. Three children with three
 * lifecycles, each kept as its design says:
 * - the credentials Secret is generated once and never overwritten: a person rotates the password
 *   by editing it, and the application reads whatever is there (a controller that wrote it back
 *   would undo every rotation);
 * - the grants ConfigMap is rendered from the spec on every pass and put back when it differs
 *   (a hand edit of the grants is drift to repair);
 * - the init Job that creates the login runs once: when it has completed, `status.initialized`
 *   says so, and a completed Job someone deleted is not run again (re-running it would reset the
 *   login); before that, a Job that went missing is made again.
 * Ready when initialized and the grants match the spec.
 */
export const DB_USER = 'DbUser';

interface DbUserSpec {
  database: string;
  privileges: 'read' | 'write';
}
interface DbUserStatus {
  initialized?: boolean;
  /** The buggy twin's bookkeeping: the database and privileges whose grants it last rendered. */
  grantsFor?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}
type DbUser = StoredObject<DbUserSpec, DbUserStatus>;

/** A password derived from the uid: deterministic (no Math.random in a simulation), different per login. */
const passwordOf = (u: DbUser): string => createHash('sha256').update(`pw/${u.metadata.uid}`).digest('base64url').slice(0, 24);

const grantsOf = (u: DbUser) => ({ database: u.spec.database, privileges: u.spec.privileges === 'write' ? 'SELECT,INSERT,UPDATE,DELETE' : 'SELECT' });

/** `fromBookkeeping`: render the grants only when the spec differs from the one status says they were rendered for (the buggy twin). */
const reconciler = (fromBookkeeping: boolean) => async (ctx: ReconcileContext): Promise<void> => {
  const u = await ctx.client.tryGet<DbUserSpec, DbUserStatus>(DB_USER, ctx.key, { live: true });
  if (!u || u.metadata.deletionTimestamp !== undefined) return;
  const ns = u.metadata.namespace;
  const owner = [controllerRef(u)];
  // generated once: created when missing, never patched (a rotation is the person's)
  const secretRef = { namespace: ns, name: `${u.metadata.name}-credentials` };
  if (!(await ctx.client.tryGet('Secret', secretRef))) {
    try {
      await ctx.client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { ...secretRef, ownerReferences: owner }, type: 'kubernetes.io/basic-auth', data: { username: btoa(u.metadata.name), password: btoa(passwordOf(u)) } });
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
    }
  }
  // rendered and repaired on every pass
  const grantsFor = `${u.spec.database}/${u.spec.privileges}`;
  if (!fromBookkeeping || u.status.grantsFor !== grantsFor) await apply(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: `${u.metadata.name}-grants`, ownerReferences: owner }, data: grantsOf(u) });
  // run once
  let initialized = u.status.initialized === true;
  let failed = false;
  if (!initialized) {
    const jobRef = { namespace: ns, name: `${u.metadata.name}-init` };
    let j = await ctx.client.tryGet('Job', jobRef, { live: true });
    if (!j) {
      try {
        j = await ctx.client.create({
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { ...jobRef, ownerReferences: owner },
          spec: { backoffLimit: 2, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'create-login', image: 'psql:16', args: ['create-login', u.metadata.name] }] } } },
        });
      } catch (err) {
        if (!(err instanceof AlreadyExistsError)) throw err;
        j = await ctx.client.get('Job', jobRef, { live: true });
      }
    }
    initialized = jobComplete(j);
    failed = jobFailed(j);
  }
  const ready = initialized;
  const conditions = setCondition(u.status.conditions, { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'LoginReady' : failed ? 'InitFailed' : 'Initializing', message: `${u.spec.privileges} on ${u.spec.database}`, observedGeneration: u.metadata.generation }, ctx.clock.now());
  await writeStatus(ctx, u, { ...(initialized ? { initialized: true } : {}), ...(fromBookkeeping ? { grantsFor } : {}), observedGeneration: u.metadata.generation, conditions });
};

const definition = { name: 'db-credentials', for: DB_USER, owns: ['Secret', 'ConfigMap', 'Job'], leaderElection: true, resyncPeriodMs: RESYNC_MS };

export const dbCredentialsController = defineController({ ...definition, reconcile: reconciler(false) });

/**
 * Buggy twin: renders the grants only when the spec differs from the one status says they were
 * rendered for, so grants deleted or edited by hand are never put back (it maintains the
 * ConfigMap, from its own bookkeeping instead of from what the ConfigMap holds).
 */
export const dbCredentialsFromBookkeeping = defineController({ ...definition, reconcile: reconciler(true) });

export const dbCredentials: FalsePositiveCase = {
  name: 'db-credentials',
  description: 'a DbUser gets a generated-once credentials Secret (people rotate it), a grants ConfigMap rendered and repaired on every pass, and a run-once init Job never re-run after it completed',
  controllers: [dbCredentialsController],
  options: {
    objects: { kind: DB_USER, name: 'app', spec: [{ database: 'orders', privileges: 'read' }, { database: 'orders', privileges: 'write' }, { database: 'billing', privileges: 'read' }] },
    environment: [job, podLifecycle],
  },
  properties: podEndStateProperties(),
  buggy: { controllers: [dbCredentialsFromBookkeeping], caughtBy: ['same-end-state'], seed: 7, why: 'grants deleted or edited by hand are never put back: it renders them only when the spec differs from what its status says they were rendered for' },
};
