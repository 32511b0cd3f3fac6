import { defineController, type ControllerDefinition, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { statusTruthfulness } from '../../properties/status-truthfulness.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A status roll-up over many children (Argo CD application health / Crossplane composite style):
 * a `Stack` owns one `Component` per name it lists, all running its image, and reports Ready only
 * when every one of them is Ready FOR ITS CURRENT SPEC: a child's status counts only when its
 * status.observedGeneration is its generation AND it runs the Stack's image (status.image), so a
 * child the Stack just rolled to a new image, still Ready on the old one, is Progressing.
 * The child states come from the cache, except the children this pass wrote (the write's answer).
 * A second controller, the components' own runtime, takes 2 s to bring a Component up (an image
 * ending in `:broken` never comes up: Failed, which the Stack reports as Degraded).
 * Written by the eleventh red team (rt51).
 *
 * Its twin takes observedGeneration for "done" (as a Deployment's Available stays True all through
 * its rollout): after a rollout it reports the Stack Ready at the new generation while every child
 * still runs the old image.
 */
export const STACK = 'Stack';
export const COMPONENT = 'Component';
const BRING_UP_MS = 2_000;

interface StackSpec {
  image: string;
  components: string[];
}
interface StackStatus {
  components?: Record<string, string>;
  conditions?: Condition[];
  observedGeneration?: number;
}
interface ComponentSpec {
  image: string;
}
interface ComponentStatus {
  /** Of the image that runs (`image`), not necessarily the one asked for. */
  phase?: 'Progressing' | 'Ready' | 'Failed';
  image?: string;
  since?: number;
  observedGeneration?: number;
}
type Component = StoredObject<ComponentSpec, ComponentStatus>;

const childName = (stack: { metadata: { name: string } }, c: string): string => `${stack.metadata.name}-${c}`;

/** What a child says about the Stack's image: its phase once its status is about its generation and it runs that image, else Progressing. */
function childState(child: Component | undefined, image: string, generationOnly: boolean): string {
  if (!child) return 'Missing';
  if (child.spec.image !== image || child.status.observedGeneration !== child.metadata.generation) return 'Progressing';
  // the twin stops here: an observed generation says the runtime took the spec, not that it runs it
  if (!generationOnly && child.status.image !== image) return 'Progressing';
  return child.status.phase ?? 'Progressing';
}

function stackHealth(mistake: 'none' | 'generation-only'): ControllerDefinition {
  return defineController({
    name: 'stack-health',
    for: STACK,
    owns: [COMPONENT],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const stack = await ctx.client.tryGet<StackSpec, StackStatus>(STACK, ctx.key, { live: true });
      if (!stack || stack.metadata.deletionTimestamp !== undefined) return;
      const wanted = [...new Set(stack.spec.components)].sort();
      const states: Record<string, string> = {};
      for (const c of wanted) {
        const child = (await apply(ctx, { apiVersion: 'apps.example.com/v1', kind: COMPONENT, metadata: { name: childName(stack, c), namespace: stack.metadata.namespace, ownerReferences: [controllerRef(stack)] }, spec: { image: stack.spec.image } })) as unknown as Component;
        states[c] = childState(child, stack.spec.image, mistake === 'generation-only');
      }
      for (const child of await ctx.client.list<ComponentSpec>(COMPONENT, { namespace: stack.metadata.namespace })) {
        if (controlledBy(child, stack) && !wanted.some((c) => childName(stack, c) === child.metadata.name) && child.metadata.deletionTimestamp === undefined) {
          await ctx.client.delete(COMPONENT, { namespace: child.metadata.namespace, name: child.metadata.name }, { preconditions: { uid: child.metadata.uid } }).catch((err: { reason?: string }) => {
            if (err.reason !== 'NotFound' && err.reason !== 'Conflict') throw err;
          });
        }
      }
      const values = Object.values(states);
      const ready = values.every((s) => s === 'Ready');
      const failed = wanted.filter((c) => states[c] === 'Failed');
      const now = ctx.clock.now();
      let conditions = setCondition(stack.status.conditions, { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'AllComponentsReady' : failed.length > 0 ? 'ComponentFailed' : 'Progressing', message: ready ? '' : wanted.filter((c) => states[c] !== 'Ready').map((c) => `${c}: ${states[c]}`).join(', '), observedGeneration: stack.metadata.generation }, now);
      conditions = setCondition(conditions, { type: 'Degraded', status: failed.length > 0 ? 'True' : 'False', reason: failed.length > 0 ? 'ComponentFailed' : 'AsExpected', message: failed.join(', '), observedGeneration: stack.metadata.generation }, now);
      await writeStatus(ctx, stack, { components: states, conditions, observedGeneration: stack.metadata.generation });
    },
  });
}

/**
 * The components' runtime, Deployment-like: it takes a new spec at once (observedGeneration) but
 * keeps serving the old image, still Ready, for BRING_UP_MS while the new one comes up; then the
 * new image runs, Ready (a `:broken` image: Failed).
 */
export const componentRuntime = defineController({
  name: 'component-runtime',
  for: COMPONENT,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const c = await ctx.client.tryGet<ComponentSpec, ComponentStatus>(COMPONENT, ctx.key, { live: true });
    if (!c || c.metadata.deletionTimestamp !== undefined) return;
    const now = ctx.clock.now();
    if (c.status.observedGeneration !== c.metadata.generation || c.status.since === undefined) {
      await ctx.client.updateStatus({ ...c, status: { ...c.status, phase: c.status.phase ?? 'Progressing', since: now, observedGeneration: c.metadata.generation } });
      return { requeueAfter: BRING_UP_MS };
    }
    if (c.status.image === c.spec.image) return;
    if (now - c.status.since < BRING_UP_MS) return { requeueAfter: BRING_UP_MS - (now - c.status.since) };
    await ctx.client.updateStatus({ ...c, status: { ...c.status, image: c.spec.image, phase: c.spec.image.endsWith(':broken') ? 'Failed' : 'Ready' } });
  },
});

/** A Stack is actually ready when each Component it lists runs its image and is Ready at its own generation. */
function stackReady(stack: StoredObject, view: WorldView): true | string {
  const spec = stack.spec as unknown as StackSpec;
  for (const c of spec.components) {
    const child = view.get(COMPONENT, `${stack.metadata.namespace}/${childName(stack, c)}`) as Component | undefined;
    if (!child) return `Component ${c} is missing`;
    if (child.spec.image !== spec.image || child.status.image !== spec.image) return `Component ${c} runs ${child.status.image ?? 'nothing'}, not ${spec.image}`;
    if (child.status.observedGeneration !== child.metadata.generation || child.status.phase !== 'Ready') return `Component ${c} is ${child.status.phase ?? 'new'} at generation ${child.status.observedGeneration ?? 0} of ${child.metadata.generation}`;
  }
  return true;
}

/** The claim judged: Ready True about the Stack's current generation (a claim about an older one is not one about this spec). */
function claimsReady(stack: StoredObject): boolean {
  const status = stack.status as StackStatus;
  return status.observedGeneration === stack.metadata.generation && (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

export const stackHealthController = stackHealth('none');

export const stackHealthCase: FalsePositiveCase = {
  name: 'stack-health',
  description: "a status roll-up: a Stack owns a Component per name and is Ready only when each is Ready at its own generation on the Stack's image (a child's answer about its old spec is Progressing), Degraded when one failed",
  controllers: [stackHealthController, componentRuntime],
  options: {
    objects: {
      kind: STACK,
      name: 'shop',
      spec: [
        { image: 'shop:1.0', components: ['api', 'web'] },
        { image: 'shop:1.1', components: ['api', 'web', 'worker'] },
        { image: 'shop:1.1:broken', components: ['api'] },
      ],
    },
  },
  properties: [statusTruthfulness({ kinds: [STACK], reported: claimsReady, actual: stackReady }), ...endStateProperties('status.since')],
  buggy: {
    controllers: [stackHealth('generation-only'), componentRuntime],
    caughtBy: ['status-truthfulness'],
    // a rollout shows it only once the children are up on the first image: create, then an edit seconds later
    world: { maxActions: 4 },
    // swarm search found it on 3 seeds of 15 (seed 6 pinned, rt51); systematic mode's base (create, an
    // edit, an edit back) shows it in the fault-free reference run itself: deterministic, found at run 1
    search: 'systematic',
    why: "it takes a child's observedGeneration for done: right after a rollout, with the old image still serving (Ready), it reports the Stack Ready on the new image",
  },
};
