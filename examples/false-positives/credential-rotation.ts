import { defineController, fromVirtualTimestamp, virtualTimestamp, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { fnv1a } from '../../src/sim/hash.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * An `ApiToken` keeps a Secret `<name>-token` whose token rotates every `rotateEverySeconds`
 * (Vault dynamic secrets, cloud key rotation): clock-driven work, not event-driven. Rotations are
 * aligned to windows of the period on the virtual clock, and the token of a window is derived
 * from the ApiToken's uid, its scope and the window's index (a KMS-derived key), so a reconcile
 * repeated in the same window writes nothing and every run holds the same token at the same time.
 * The controller requeues at the next window's start. A changed scope is reissued at once.
 *
 * Its safety rule, what the consumers of the token rely on: a token is never replaced less than a
 * period after it was issued for the same scope (a grace period to pick up the new one). The
 * Secret carries what the rule needs (`rotated-at`, `previous-rotated-at`, the period).
 */
export const API_TOKEN = 'ApiToken';
const WINDOW = 'rotation.example/window';
const ROTATED_AT = 'rotation.example/rotated-at';
const PREVIOUS = 'rotation.example/previous-rotated-at';
const PERIOD = 'rotation.example/rotate-every-ms';
const SCOPE = 'rotation.example/scope';

interface ApiTokenSpec {
  rotateEverySeconds: number;
  scope: string;
}
interface ApiTokenStatus {
  window?: number;
  rotatedAt?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

const tokenOf = (uid: string, scope: string, at: number): string => fnv1a(`${uid}/${scope}/${at}`).toString(36);
const annotation = (o: StoredObject | undefined, k: string): string | undefined => o?.metadata.annotations[k];

/** The Secret holding the token issued at `at` for `scope`, which replaces `held` (the previous one, if of the same scope). */
function secretFor(t: StoredObject<ApiTokenSpec, ApiTokenStatus>, held: StoredObject | undefined, at: number, periodMs: number) {
  const sameScope = annotation(held, SCOPE) === t.spec.scope;
  const previous = sameScope ? annotation(held, ROTATED_AT) : undefined;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `${t.metadata.name}-token`,
      namespace: t.metadata.namespace,
      ownerReferences: [controllerRef(t)],
      annotations: { [SCOPE]: t.spec.scope, [PERIOD]: String(periodMs), [ROTATED_AT]: virtualTimestamp(at), ...(previous !== undefined ? { [PREVIOUS]: previous } : {}) },
    },
    type: 'Opaque',
    data: { token: Buffer.from(tokenOf(t.metadata.uid, t.spec.scope, at)).toString('base64') },
  };
}

/**
 * `aligned`: rotate when the Secret's token is from an earlier window, judged on the Secret read
 * live (correct); or when the ApiToken's cached `status.rotatedAt` is a period old, rotating at
 * that moment (the buggy twin).
 */
const reconciler = (aligned: boolean) => async (ctx: ReconcileContext): Promise<ReconcileResult> => {
  const t = await ctx.client.tryGet<ApiTokenSpec, ApiTokenStatus>(API_TOKEN, ctx.key, aligned ? { live: true } : {});
  if (!t || t.metadata.deletionTimestamp !== undefined) return;
  const periodMs = Math.max(1, t.spec.rotateEverySeconds) * 1000;
  const now = ctx.clock.now();
  const ref = { namespace: t.metadata.namespace, name: `${t.metadata.name}-token` };
  const held = await ctx.client.tryGet('Secret', ref, { live: true });
  const heldAt = annotation(held, ROTATED_AT);
  const current = held !== undefined && annotation(held, SCOPE) === t.spec.scope && held['data'] !== undefined;
  let at: number;
  let due: boolean;
  if (aligned) {
    at = Math.floor(now / periodMs) * periodMs;
    due = !current || heldAt === undefined || fromVirtualTimestamp(heldAt) < at;
  } else {
    // the mistake: the decision reads the cached status, which may not show the last rotation yet
    const last = t.status.rotatedAt !== undefined ? fromVirtualTimestamp(t.status.rotatedAt) : undefined;
    due = !current || last === undefined || now - last >= periodMs;
    at = due ? now : fromVirtualTimestamp(heldAt ?? virtualTimestamp(now));
  }
  let secret = held;
  if (due) {
    const want = secretFor(t, held, at, periodMs);
    secret = held === undefined ? await ctx.client.create(want) : await ctx.client.update({ ...held, metadata: { ...held.metadata, annotations: want.metadata.annotations, ownerReferences: want.metadata.ownerReferences }, type: want.type, data: want.data });
  }
  const rotatedAt = annotation(secret, ROTATED_AT);
  const conditions = setCondition(t.status.conditions, { type: 'Ready', status: 'True', reason: 'TokenIssued', message: `token for ${t.spec.scope}`, observedGeneration: t.metadata.generation }, now);
  await writeStatus(ctx, t, { ...(aligned ? { window: Math.floor(now / periodMs) } : {}), ...(rotatedAt !== undefined ? { rotatedAt } : {}), observedGeneration: t.metadata.generation, conditions });
  const next = aligned ? (Math.floor(now / periodMs) + 1) * periodMs : fromVirtualTimestamp(rotatedAt ?? virtualTimestamp(now)) + periodMs;
  return { requeueAfter: Math.max(1, next - now) };
};

const definition = { name: 'api-token', for: API_TOKEN, owns: ['Secret'], leaderElection: true, resyncPeriodMs: RESYNC_MS };

export const apiTokenController = defineController({ ...definition, reconcile: reconciler(true) });

/** Buggy twin: decides to rotate from the cached ApiToken's status, so a cache behind its own last status write rotates the token a second time at once. */
export const apiTokenControllerFromCache = defineController({ ...definition, reconcile: reconciler(false) });

/** No token of a scope is replaced less than its period after it was issued. */
export function graceKept(view: WorldView): true | string {
  for (const s of view.list('Secret')) {
    const a = s.metadata.annotations;
    const at = a[ROTATED_AT];
    const prev = a[PREVIOUS];
    const period = Number(a[PERIOD]);
    if (at === undefined || prev === undefined || !(period > 0)) continue;
    const gap = fromVirtualTimestamp(at) - fromVirtualTimestamp(prev);
    if (gap < period) return `Secret ${s.metadata.namespace ?? ''}/${s.metadata.name} replaced its token ${gap} ms after issuing it (period ${period} ms)`;
  }
  return true;
}

export const credentialRotation: FalsePositiveCase = {
  name: 'credential-rotation',
  description: 'an ApiToken keeps a Secret whose token rotates on clock-aligned windows (a derived key per window), requeueing at the next window, reissued at once for a new scope',
  controllers: [apiTokenController],
  options: {
    objects: { kind: API_TOKEN, name: 'ci', spec: [{ rotateEverySeconds: 15, scope: 'read' }, { rotateEverySeconds: 15, scope: 'write' }, { rotateEverySeconds: 15, scope: 'read' }] },
  },
  properties: [...endStateProperties(), safetyInvariants({ invariants: { 'a token is kept a period before it is replaced': graceKept } })],
  buggy: {
    controllers: [apiTokenControllerFromCache],
    caughtBy: ['safety-invariants'],
    why: 'it decides to rotate from the cached ApiToken, whose status may not show the rotation it just made, and replaces the token again at once',
  },
};
