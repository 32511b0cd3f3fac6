import { keyOf, type JsonObject } from '../store/object.js';
import { defineEnvironmentActor, type EnvironmentSyncContext, type EnvironmentSyncResult } from './define-environment-actor.js';
import { checkNumber, firstProblem } from './_internals/params.js';

/** Parameters of {@link leaseHolder}, in virtual ms. @public */
export interface LeaseHolderParams extends JsonObject {
  /** The Lease to hold; empty: `<controller>-leader`, the lease steadystate's runtime elects on. @defaultValue '' */
  lease: string;
  /** The controller whose leader lease to hold (when `lease` is empty). @defaultValue '' */
  controller: string;
  /** @defaultValue 'kube-system' */
  namespace: string;
  /** The holder's identity (another instance of the operator, elsewhere). @defaultValue 'external-holder' */
  identity: string;
  /** When to start trying to acquire it. @defaultValue 0 */
  fromMs: number;
  /** End of the episode, counted from `fromMs`: the lease is released then. A negative number holds it forever. @defaultValue 20_000 */
  holdMs: number;
  /** Renewal period. @defaultValue 2000 */
  renewEveryMs: number;
  /** Lease duration written in the Lease and used to tell whether the current holder's lease expired. @defaultValue 15_000 */
  leaseDurationMs: number;
}

const DEFAULTS: LeaseHolderParams = { lease: '', controller: '', namespace: 'kube-system', identity: 'external-holder', fromMs: 0, holdMs: 20_000, renewEveryMs: 2000, leaseDurationMs: 15_000 };

/**
 * A competing leader-election candidate (another replica of the operator running outside the
 * simulation): between `fromMs` and `fromMs + holdMs` it acquires the Lease (at once when it is
 * free, or once the current holder's lease has expired) and renews it every `renewEveryMs`; at
 * `fromMs + holdMs` it releases it (empty holder, expired renew time) and stops competing, so a controller with `leaderElection: true` must wait for
 * it and take over cleanly. The Lease `spec` uses the fields steadystate's runtime elects with:
 * `holderIdentity`, `renewTime` (virtual ms), `leaseDurationSeconds`.
 * @public
 */
export const leaseHolder = defineEnvironmentActor<LeaseHolderParams>({
  name: 'lease-holder',
  description: 'another candidate holds the leader-election lease for a while, then releases it',
  defaults: DEFAULTS,
  validate: (p) =>
    firstProblem(
      p.lease === '' && p.controller === '' ? 'give params.lease (a Lease name) or params.controller (whose `<controller>-leader` lease to hold)' : undefined,
      checkNumber(p, 'fromMs'),
      checkNumber(p, 'renewEveryMs', 1),
      checkNumber(p, 'leaseDurationMs', 1),
    ),
  for: 'Lease',
  start(ctx) {
    ctx.enqueue(leaseKey(ctx.params));
  },
  sync,
});

function leaseKey(p: LeaseHolderParams): string {
  return keyOf({ namespace: p.namespace, name: p.lease !== '' ? p.lease : `${p.controller}-leader` });
}

function sync(ctx: EnvironmentSyncContext<LeaseHolderParams>): EnvironmentSyncResult {
  const p = ctx.params;
  if (ctx.key !== leaseKey(p)) return;
  const now = ctx.now();
  if (now < p.fromMs) return { afterMs: p.fromMs - now };
  const lease = ctx.object;
  const holder = lease?.spec['holderIdentity'];
  const renew = Number(lease?.spec['renewTime'] ?? 0);
  const mine = holder === p.identity;
  const releaseAt = p.holdMs < 0 ? Infinity : p.fromMs + p.holdMs;
  if (now >= releaseAt) {
    if (mine) {
      // client-go's ReleaseOnCancel: an empty holder, and a renew time that has already expired
      ctx.patch('Lease', ctx.key, { spec: { holderIdentity: '', renewTime: now - p.leaseDurationMs - 1 } });
      ctx.record('lease:released', { key: ctx.key, identity: p.identity });
    }
    return undefined;
  }
  const untilRelease = releaseAt - now;
  if (mine) {
    if (now - renew >= p.renewEveryMs) ctx.patch('Lease', ctx.key, { spec: { renewTime: now } });
    const since = now - renew >= p.renewEveryMs ? 0 : now - renew;
    return { afterMs: Math.min(p.renewEveryMs - since, untilRelease) };
  }
  const spec = { holderIdentity: p.identity, renewTime: now, acquireTime: now, leaseDurationSeconds: p.leaseDurationMs / 1000 };
  if (!lease) {
    if (ctx.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: ctx.name, ...(ctx.namespace !== undefined ? { namespace: ctx.namespace } : {}) }, spec })) {
      ctx.record('lease:acquired', { key: ctx.key, identity: p.identity });
    }
    return { afterMs: Math.min(p.renewEveryMs, untilRelease) };
  }
  const expiresAt = renew + p.leaseDurationMs;
  if (holder === '' || holder === undefined || now > expiresAt) {
    ctx.patch('Lease', ctx.key, { spec });
    ctx.record('lease:acquired', { key: ctx.key, identity: p.identity, from: typeof holder === 'string' ? holder : null });
    return { afterMs: Math.min(p.renewEveryMs, untilRelease) };
  }
  // held by another candidate: try again when its lease would expire
  return { afterMs: Math.min(expiresAt + 1 - now, untilRelease) };
}
