import { defineController, type ControllerDefinition, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * kube-downscaler / Hibernator style: a `Hibernation` scales a Deployment it does not own to zero
 * and, when woken, back to the size it had. The size is remembered on the Deployment itself (an
 * annotation, so it survives a restart of the controller), written in the SAME optimistic update
 * that sets replicas to 0: a retry after a crash, a lost answer or a 409 finds either both
 * (hibernating, size known) or neither (awake, size in spec.replicas). Waking sets the size back
 * and drops the annotation in one update too. Written by the eleventh red team (rt51).
 *
 * Its twin does it the way a first version does: the scale subresource to 0, then the annotation
 * with the size it read before. When the second write fails (a 500, a crash between them), the next
 * pass reads 0 replicas and no annotation, remembers 0, and the woken Deployment stays at 0.
 */
export const HIBERNATION = 'Hibernation';
const ORIGINAL = 'hibernation.example.com/original-replicas';
const REPLICAS = 3;

interface HibernationSpec {
  target: string;
  hibernate: boolean;
}
interface HibernationStatus {
  phase?: 'Awake' | 'Hibernating' | 'TargetMissing' | 'Conflict';
  observedGeneration?: number;
}
interface DeploymentSpec {
  replicas?: number;
}

/** The Hibernation that acts on `target`: the oldest naming it (then by name), of those not being deleted. */
function holderOf(all: readonly StoredObject<unknown>[], target: string): StoredObject<unknown> | undefined {
  return all
    .filter((x) => (x.spec as { target?: string }).target === target && x.metadata.deletionTimestamp === undefined)
    .sort((a, b) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || a.metadata.name.localeCompare(b.metadata.name))[0];
}

function hibernation(mistake: 'none' | 'two-writes'): ControllerDefinition {
  return defineController({
    name: 'hibernation',
    for: HIBERNATION,
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    // the Deployment is the user's (not owned): its events go to the Hibernations naming it
    watches: [{ kind: 'Deployment', map: (d, ctx) => ctx.list(HIBERNATION, { namespace: d.metadata.namespace ?? '' }).filter((h) => h.spec['target'] === d.metadata.name).map((h) => `${h.metadata.namespace}/${h.metadata.name}`) }],
    async reconcile(ctx) {
      const h = await ctx.client.tryGet<HibernationSpec, HibernationStatus>(HIBERNATION, ctx.key, { live: true });
      if (!h || h.metadata.deletionTimestamp !== undefined) return;
      const ref = { namespace: h.metadata.namespace, name: h.spec.target };
      // one Deployment, one Hibernation: the oldest naming it acts, the others say so (as an HPA refuses a second autoscaler)
      const owner = holderOf(await ctx.client.list<HibernationSpec>(HIBERNATION, { namespace: h.metadata.namespace }), h.spec.target);
      if (owner !== undefined && owner.metadata.uid !== h.metadata.uid) {
        await writeStatus(ctx, h, { phase: 'Conflict', observedGeneration: h.metadata.generation });
        return;
      }
      // a cached read: every write below is conditional on its resourceVersion, so a stale view gets 409 and a retry
      const d = await ctx.client.tryGet<DeploymentSpec>('Deployment', ref);
      if (!d) {
        await writeStatus(ctx, h, { phase: 'TargetMissing', observedGeneration: h.metadata.generation });
        return;
      }
      const annotations = { ...d.metadata.annotations };
      const remembered = annotations[ORIGINAL];
      const replicas = d.spec.replicas ?? 1;
      if (h.spec.hibernate) {
        if (remembered === undefined) {
          if (mistake === 'two-writes') {
            await ctx.client.patchScale('Deployment', ref, { spec: { replicas: 0 } });
            await ctx.client.patch('Deployment', ref, { metadata: { annotations: { [ORIGINAL]: String(replicas) } } });
          } else {
            await ctx.client.update<DeploymentSpec>({ ...d, metadata: { ...d.metadata, annotations: { ...annotations, [ORIGINAL]: String(replicas) } }, spec: { ...d.spec, replicas: 0 } });
          }
        } else if (replicas !== 0) {
          // scaled up by hand while hibernating: back to 0, the remembered size kept
          await ctx.client.update<DeploymentSpec>({ ...d, spec: { ...d.spec, replicas: 0 } });
        }
      } else if (remembered !== undefined) {
        delete annotations[ORIGINAL];
        const size = Number(remembered);
        await ctx.client.update<DeploymentSpec>({ ...d, metadata: { ...d.metadata, annotations }, spec: { ...d.spec, replicas: Number.isInteger(size) && size >= 0 ? size : 1 } });
      }
      await writeStatus(ctx, h, { phase: h.spec.hibernate ? 'Hibernating' : 'Awake', observedGeneration: h.metadata.generation });
    },
  });
}

export const hibernationController = hibernation('none');

/** Hibernation's end state: asleep at 0 with the size remembered, awake at the size it had. */
function hibernated(view: WorldView): true | string {
  const all = view.list(HIBERNATION);
  for (const h of all) {
    if (h.metadata.deletionTimestamp !== undefined || holderOf(all, String(h.spec['target']))?.metadata.uid !== h.metadata.uid) continue;
    const d = view.get('Deployment', `${h.metadata.namespace}/${String(h.spec['target'])}`) as StoredObject<DeploymentSpec> | undefined;
    if (!d) continue;
    const remembered = d.metadata.annotations[ORIGINAL];
    if (h.spec['hibernate'] === true && (d.spec.replicas !== 0 || remembered !== String(REPLICAS))) return `${h.metadata.name}: hibernating, but the Deployment has ${d.spec.replicas} replicas and remembers ${remembered ?? 'nothing'}`;
    if (h.spec['hibernate'] !== true && (d.spec.replicas !== REPLICAS || remembered !== undefined)) return `${h.metadata.name}: awake, but the Deployment has ${d.spec.replicas} replicas of ${REPLICAS} (remembers ${remembered ?? 'nothing'})`;
  }
  return true;
}

const web = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: { replicas: REPLICAS, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
};

export const hibernationCase: FalsePositiveCase = {
  name: 'hibernation',
  description: "kube-downscaler style: a Hibernation scales a Deployment it does not own to 0 and back, the size remembered in an annotation written in the same optimistic update as replicas: 0",
  controllers: [hibernationController],
  options: {
    story: { objects: [web] },
    objects: { kind: HIBERNATION, name: 'nightly', spec: [{ target: 'web', hibernate: true }, { target: 'web', hibernate: false }, { target: 'web', hibernate: true }] },
  },
  properties: [convergence({ converged: hibernated }), ...endStateProperties()],
  buggy: {
    controllers: [hibernation('two-writes')],
    caughtBy: ['convergence', 'same-end-state', 'recovery'],
    why: 'it scales to 0 and remembers the size in two writes: when the second fails, the retry remembers 0 and the woken Deployment stays at 0',
  },
};

