import { defineController, type ReconcileContext, type StoredObject, type WatchMapContext } from '../../src/index.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * Cluster-scoped `Folder`s form a hierarchy through `spec.parent` (a cloud resource hierarchy,
 * HNC's namespace tree): a folder's effective labels are its ancestors' labels overridden by its
 * own, nearest first, in `status.effectiveLabels`. A change anywhere reaches every descendant, so
 * the controller's watch of Folders maps an event to the folder and all folders below it
 * (transitively, from the cache), and each reconcile walks up the declared parents (specs, not
 * the ancestors' statuses), so what it writes never depends on the order in which ancestors were
 * reconciled. A cycle (`a` under `b` under `a`) is reported in a condition, with only the
 * folder's own labels; a missing parent is waited for (its creation is an event of the watch).
 */
export const FOLDER = 'Folder';
const MAX_DEPTH = 16;

interface FolderSpec {
  parent?: string;
  labels: Record<string, string>;
}
interface FolderStatus {
  effectiveLabels?: Record<string, string>;
  observedGeneration?: number;
  conditions?: Condition[];
}
type Folder = StoredObject<FolderSpec, FolderStatus>;

/** The chain from `f` up (f first), and why it stopped early, if it did. */
function ancestry(f: Folder, byName: ReadonlyMap<string, Folder>): { chain: Folder[]; problem?: 'Cycle' | 'ParentMissing' } {
  const chain: Folder[] = [f];
  const seen = new Set([f.metadata.name]);
  let cur = f;
  while (cur.spec.parent) {
    if (seen.has(cur.spec.parent) || chain.length > MAX_DEPTH) return { chain: [f], problem: 'Cycle' };
    const parent = byName.get(cur.spec.parent);
    if (!parent || parent.metadata.deletionTimestamp !== undefined) return { chain, problem: 'ParentMissing' };
    chain.push(parent);
    seen.add(parent.metadata.name);
    cur = parent;
  }
  return { chain };
}

/** The folders below `name` (transitively), from the cache: the keys one folder's change must reach. */
export function descendants(object: StoredObject, ctx: WatchMapContext): string[] {
  const all = ctx.list(FOLDER) as unknown as Folder[];
  const below = new Set<string>();
  let frontier = [object.metadata.name];
  while (frontier.length > 0 && below.size < all.length) {
    const next: string[] = [];
    for (const f of all) if (f.spec.parent !== undefined && frontier.includes(f.spec.parent) && !below.has(f.metadata.name) && f.metadata.name !== object.metadata.name) (below.add(f.metadata.name), next.push(f.metadata.name));
    frontier = next;
  }
  return [...below].sort();
}

/** `fromSpecs`: walk the ancestors' specs (correct); or take the parent's `status.effectiveLabels` (the buggy twin). */
const reconciler = (fromSpecs: boolean) => async (ctx: ReconcileContext): Promise<void> => {
  const f = await ctx.client.tryGet<FolderSpec, FolderStatus>(FOLDER, ctx.key);
  if (!f || f.metadata.deletionTimestamp !== undefined) return;
  const byName = new Map((await ctx.client.list<FolderSpec, FolderStatus>(FOLDER)).map((x) => [x.metadata.name, x] as const));
  const { chain, problem } = ancestry(f, byName);
  let effective: Record<string, string>;
  if (fromSpecs) {
    effective = {};
    for (const a of [...chain].reverse()) Object.assign(effective, a.spec.labels);
  } else {
    // the mistake: derived state of another object, as of whenever that one was last reconciled
    const parent = f.spec.parent !== undefined ? byName.get(f.spec.parent) : undefined;
    effective = { ...(parent?.status.effectiveLabels ?? {}), ...f.spec.labels };
  }
  const now = ctx.clock.now();
  let conditions = setCondition(f.status.conditions, { type: 'Cycle', status: problem === 'Cycle' ? 'True' : 'False', reason: problem === 'Cycle' ? 'ParentCycle' : 'Acyclic', message: problem === 'Cycle' ? `${f.metadata.name} is its own ancestor` : '', observedGeneration: f.metadata.generation }, now);
  conditions = setCondition(conditions, { type: 'Ready', status: problem === undefined ? 'True' : 'False', reason: problem ?? 'Inherited', message: chain.map((c) => c.metadata.name).join(' < '), observedGeneration: f.metadata.generation }, now);
  await writeStatus(ctx, f, { effectiveLabels: effective, observedGeneration: f.metadata.generation, conditions });
};

const definition = { name: 'folder-labels', for: FOLDER, leaderElection: true, resyncPeriodMs: RESYNC_MS, watches: [{ kind: FOLDER, map: descendants }] };

export const folderLabelsController = defineController({ ...definition, reconcile: reconciler(true) });

/** Buggy twin: inherits its parent's `status.effectiveLabels` instead of walking the parents' specs. */
export const folderLabelsFromParentStatus = defineController({ ...definition, reconcile: reconciler(false) });

export const folderLabels: FalsePositiveCase = {
  name: 'folder-labels',
  description: "cluster-scoped Folders under spec.parent inherit their ancestors' labels (own labels win), recomputed from the declared parents on every change of any ancestor, with cycles reported",
  controllers: [folderLabelsController],
  options: {
    objects: {
      kind: FOLDER,
      namespace: '',
      name: 'f',
      spec: [
        { labels: { team: 'a', tier: 'prod' } },
        { parent: 'f-0', labels: { env: 'dev' } },
        { parent: 'f-1', labels: { team: 'b' } },
        { parent: 'f-0', labels: { tier: 'test' } },
        { parent: 'f-2', labels: {} },
      ],
    },
  },
  properties: endStateProperties(),
  buggy: {
    controllers: [folderLabelsFromParentStatus],
    caughtBy: ['same-end-state', 'convergence', 'recovery'],
    why: "it inherits the parent's status instead of the parents' specs: a status it read before the parent saw its own parent stays, since the parent's later status change maps to descendants from a cache that did not show this folder under it yet (and a cycle keeps labels one of its folders had before it closed)",
    world: { maxObjects: 3, maxActions: 3 },
    // a Folder watch lagging 149 ms leaves f-2 with f-1's status from before f-1 saw f-0 (seed 2, run 55)
    // the test's seed: the CI's twin test finds it at run 5 (the seed before took 55; bench/hunt-fp-rate.ts measures how often it shows)
    seed: 22,
  },
};
