import { defineController, type ControllerDefinition, type StoredObject, type WorldView } from '../../src/index.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A manual-judgement gate (Argo Rollouts / Kargo / Spinnaker style): a `Promotion` moves a release
 * ConfigMap it does not own to spec.version only once a person has approved THAT revision: an
 * `Approval` (made by a person, never by the controller) names the promotion, its generation and
 * the version approved. An approval of an earlier generation approves nothing of a later one: a
 * Promotion edited after it was approved waits for a new approval. Approvals are read from the
 * cache (one not seen yet only delays a promotion) and mapped to their Promotion by a watch.
 * Written by the eleventh red team (rt51).
 *
 * Its twin takes the promotion's latest approval as approving the promotion as it is now: an edit
 * made after the approval (a new version) is promoted on the old approval.
 */
export const PROMOTION = 'Promotion';
export const APPROVAL = 'Approval';
const INITIAL = '1.0';

interface PromotionSpec {
  target: string;
  version: string;
}
interface PromotionStatus {
  phase?: 'AwaitingApproval' | 'Promoted' | 'TargetMissing';
  promoted?: string;
  approval?: string;
  observedGeneration?: number;
}
interface ApprovalSpec {
  promotion: string;
  generation: number;
  version: string;
}

function approvalGate(mistake: 'none' | 'latest-approval'): ControllerDefinition {
  return defineController({
    name: 'approval-gate',
    for: PROMOTION,
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    watches: [{ kind: APPROVAL, map: (a) => [`${a.metadata.namespace}/${String(a.spec['promotion'])}`] }],
    async reconcile(ctx) {
      const p = await ctx.client.tryGet<PromotionSpec, PromotionStatus>(PROMOTION, ctx.key, { live: true });
      if (!p || p.metadata.deletionTimestamp !== undefined) return;
      const approvals = (await ctx.client.list<ApprovalSpec>(APPROVAL, { namespace: p.metadata.namespace })).filter((a) => a.spec.promotion === p.metadata.name);
      let approval: StoredObject<ApprovalSpec> | undefined;
      if (mistake === 'latest-approval') approval = approvals.sort((a, b) => b.spec.generation - a.spec.generation)[0];
      else approval = approvals.find((a) => a.spec.generation === p.metadata.generation && a.spec.version === p.spec.version);
      const observedGeneration = p.metadata.generation;
      if (!approval) {
        await writeStatus(ctx, p, { ...p.status, phase: 'AwaitingApproval', observedGeneration });
        return;
      }
      const ref = { namespace: p.metadata.namespace, name: p.spec.target };
      const target = await ctx.client.tryGet('ConfigMap', ref, { live: true });
      if (!target) {
        await writeStatus(ctx, p, { ...p.status, phase: 'TargetMissing', observedGeneration });
        return;
      }
      const data = (target['data'] ?? {}) as Record<string, string>;
      if (data['version'] !== p.spec.version) await ctx.client.patch('ConfigMap', ref, { data: { version: p.spec.version } }, { resourceVersion: target.metadata.resourceVersion });
      await writeStatus(ctx, p, { phase: 'Promoted', promoted: p.spec.version, approval: approval.metadata.name, observedGeneration });
    },
  });
}

export const approvalGateController = approvalGate('none');

/** A release ConfigMap holds its initial version or one a person approved for a promotion targeting it. */
function onlyApproved(view: WorldView): true | string {
  for (const cm of view.list('ConfigMap')) {
    const version = ((cm['data'] ?? {}) as Record<string, string>)['version'];
    if (version === undefined || version === INITIAL) continue;
    const promotions = view.list(PROMOTION).filter((p) => p.metadata.namespace === cm.metadata.namespace && p.spec['target'] === cm.metadata.name).map((p) => p.metadata.name);
    const ok = view.list(APPROVAL).some((a) => a.metadata.namespace === cm.metadata.namespace && a.spec['version'] === version && promotions.includes(String(a.spec['promotion'])));
    if (!ok) return `ConfigMap ${cm.metadata.name} holds version ${version}, which nobody approved`;
  }
  return true;
}

const release = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { version: INITIAL } });
const approve = (at: number, name: string, promotion: string, generation: number, version: string) => ({ at, type: 'create' as const, object: { apiVersion: 'gates.example.com/v1', kind: APPROVAL, metadata: { name, namespace: 'default' }, spec: { promotion, generation, version } } });

export const approvalGateCase: FalsePositiveCase = {
  name: 'approval-gate',
  description: 'a manual-judgement gate: a Promotion moves a release ConfigMap it does not own to spec.version only once an Approval (made by a person) names that promotion, its current generation and that version; an edited Promotion waits for a new approval',
  controllers: [approvalGateController],
  options: {
    // shop asks for 1.1 and is approved at 2 s; edited to 1.2 at 6 s, that is approved at 10 s; api is never approved
    story: {
      objects: [release('shop-release'), release('api-release'), { apiVersion: 'gates.example.com/v1', kind: PROMOTION, metadata: { name: 'shop', namespace: 'default' }, spec: { target: 'shop-release', version: '1.1' } }],
      actions: [
        approve(2000, 'shop-1-ana', 'shop', 1, '1.1'),
        { at: 6000, type: 'patch', kind: PROMOTION, key: 'default/shop', patch: { spec: { version: '1.2' } } },
        approve(10_000, 'shop-2-bo', 'shop', 2, '1.2'),
      ],
    },
    // generated Promotions nobody approves: the api release never moves
    objects: { kind: PROMOTION, name: 'api', spec: [{ target: 'api-release', version: '2.0' }, { target: 'api-release', version: '2.1' }] },
  },
  properties: [safetyInvariants({ invariants: { 'only approved versions are released': onlyApproved } })],
  buggy: {
    controllers: [approvalGate('latest-approval')],
    caughtBy: ['safety-invariants'],
    why: "it takes the promotion's latest approval as approving it as it is now: the version set after the approval is released on the old one",
  },
};
