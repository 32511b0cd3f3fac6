import { defineController, type Json, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * Fan-in, in the style of kube's ClusterRole aggregation controller: an `AggregatedRole` names
 * label selectors (`spec.fragmentSelectors`, each a matchLabels map, as an aggregationRule's
 * clusterRoleSelectors), and its controller keeps a `Role` of the same name (owned by it) whose
 * `rules` are the union of the rules of every `RoleFragment` of its namespace that any selector
 * matches. Teams add, edit and delete fragments; the aggregate follows. The union is normalized
 * (every rule flattened to apiGroup × resource × verb, regrouped per apiGroup and resource, verbs
 * sorted, rules sorted), so the Role's rules depend only on which permissions the fragments grant,
 * never on list order or on which fragment grants them twice; the Role is patched only when its
 * rules differ, and `status.fragments` names the fragments aggregated (sorted).
 *
 * A fragment event enqueues every aggregate of its namespace whose selectors match it (the
 * deleted fragment's last state, for a delete). The fragments come from the informer cache: a
 * cache behind only delays the right union until the next fragment event (or the resync, when the
 * aggregate's selector change and a fragment's creation raced past each other in two caches). The
 * aggregate itself is read live (it creates the Role; see index.ts).
 *
 * Its buggy twin merges instead of replacing, as a controller that "adds the missing rules" does:
 * it unions the fragments' rules with the Role's current ones, so a fragment deleted or edited,
 * or a selector that stops matching one, never takes a permission away (a privilege that outlives
 * the grant behind it).
 */
export const AGGREGATED_ROLE = 'AggregatedRole';
export const ROLE_FRAGMENT = 'RoleFragment';
const VIEW = 'rbac.example.com/aggregate-to-view';
const EDIT = 'rbac.example.com/aggregate-to-edit';

type PolicyRule = {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
};
interface AggregateSpec {
  fragmentSelectors: { matchLabels: Record<string, string> }[];
}
interface AggregateStatus {
  fragments?: string[];
  ruleCount?: number;
  observedGeneration?: number;
}
interface FragmentSpec {
  rules: PolicyRule[];
}
type Aggregate = StoredObject<AggregateSpec, AggregateStatus>;

/** Whether one of the aggregate's selectors matches the object's labels (an empty matchLabels matches nothing: a selector that names no label is a mistake, not "everything"). */
function selects(spec: AggregateSpec, o: StoredObject): boolean {
  return (spec.fragmentSelectors ?? []).some((s) => {
    const want = Object.entries(s.matchLabels ?? {});
    return want.length > 0 && want.every(([k, v]) => o.metadata.labels[k] === v);
  });
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The normalized union of rules: one rule per apiGroup and resource, its verbs sorted, rules sorted. */
export function unionOf(rules: readonly unknown[]): PolicyRule[] {
  const verbs = new Map<string, Set<string>>();
  for (const r of rules) {
    if (r === null || typeof r !== 'object') continue;
    const rule = r as Record<string, unknown>;
    for (const g of strings(rule['apiGroups'])) {
      for (const res of strings(rule['resources'])) {
        const k = JSON.stringify([g, res]);
        let set = verbs.get(k);
        if (!set) verbs.set(k, (set = new Set()));
        for (const v of strings(rule['verbs'])) set.add(v);
      }
    }
  }
  return [...verbs.entries()]
    .filter(([, vs]) => vs.size > 0)
    .map(([k, vs]) => {
      const [g, res] = JSON.parse(k) as [string, string];
      return { apiGroups: [g], resources: [res], verbs: [...vs].sort() };
    })
    .sort((a, b) => a.apiGroups[0]!.localeCompare(b.apiGroups[0]!) || a.resources[0]!.localeCompare(b.resources[0]!));
}

/** The fragments an aggregate selects, by name (being deleted no longer counts). */
function selected(spec: AggregateSpec, fragments: readonly StoredObject[]): StoredObject[] {
  return fragments.filter((f) => f.metadata.deletionTimestamp === undefined && selects(spec, f)).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

const rulesOf = (fragments: readonly StoredObject[]): unknown[] => fragments.flatMap((f) => (Array.isArray(f.spec['rules']) ? (f.spec['rules'] as unknown[]) : []));

function define(mistake: 'none' | 'merge') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const agg = (await ctx.client.tryGet<AggregateSpec, AggregateStatus>(AGGREGATED_ROLE, ctx.key, { live: true })) as Aggregate | undefined;
    if (!agg || agg.metadata.deletionTimestamp !== undefined) return;
    const ns = agg.metadata.namespace;
    const fragments = selected(agg.spec, await ctx.client.list(ROLE_FRAGMENT, ns !== undefined ? { namespace: ns } : {}));
    let rules = unionOf(rulesOf(fragments));
    if (mistake === 'merge') {
      // BUG (merge): what the Role grants already stays granted
      const current = await ctx.client.tryGet('Role', { namespace: ns, name: agg.metadata.name });
      if (current && controlledBy(current, agg)) rules = unionOf([...((current['rules'] as unknown[] | undefined) ?? []), ...rules]);
    }
    await apply(ctx, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: agg.metadata.name, ...(ns !== undefined ? { namespace: ns } : {}), labels: { 'rbac.example.com/aggregated-by': agg.metadata.name }, ownerReferences: [controllerRef(agg)] },
      rules: rules as unknown as Json[],
    });
    await writeStatus(ctx, agg, { fragments: fragments.map((f) => f.metadata.name), ruleCount: rules.length, observedGeneration: agg.metadata.generation });
  }
  return defineController({
    name: 'role-aggregator',
    for: AGGREGATED_ROLE,
    owns: ['Role'],
    // fan-in: a fragment's change concerns every aggregate that selects it
    watches: [
      {
        kind: ROLE_FRAGMENT,
        map: (f, view) => {
          const ns = f.metadata.namespace;
          return view
            .list(AGGREGATED_ROLE, ns !== undefined ? { namespace: ns } : {})
            .filter((a) => selects(a.spec as unknown as AggregateSpec, f))
            .map((a) => (ns !== undefined ? `${ns}/${a.metadata.name}` : a.metadata.name));
        },
      },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const roleAggregatorController = define('none');

/**
 * Converged, for the aggregator: every aggregate reports its generation, the fragments it selects
 * now, and its Role (controlled by it) grants exactly their union.
 */
export function aggregatesSettled(view: WorldView): true | string {
  for (const a of view.list(AGGREGATED_ROLE)) {
    if (a.metadata.deletionTimestamp !== undefined) continue;
    const s = a.status as AggregateStatus;
    const spec = a.spec as unknown as AggregateSpec;
    if (s.observedGeneration !== a.metadata.generation) return `aggregate ${a.metadata.name} has not observed generation ${a.metadata.generation}`;
    const frags = selected(spec, view.list(ROLE_FRAGMENT).filter((f) => f.metadata.namespace === a.metadata.namespace));
    const names = frags.map((f) => f.metadata.name);
    if (JSON.stringify(s.fragments ?? []) !== JSON.stringify(names)) return `aggregate ${a.metadata.name} reports fragments ${JSON.stringify(s.fragments ?? [])}, it selects ${JSON.stringify(names)}`;
    const role = view.list('Role').find((r) => r.metadata.namespace === a.metadata.namespace && r.metadata.name === a.metadata.name && controlledBy(r, a));
    if (!role) return `aggregate ${a.metadata.name} has no Role of its own`;
    const want = JSON.stringify(unionOf(rulesOf(frags)));
    const have = JSON.stringify(role['rules'] ?? []);
    if (have !== want) return `Role ${a.metadata.name} grants ${have}, its fragments grant ${want}`;
  }
  return true;
}

const rule = (resources: string[], verbs: string[], apiGroups: string[] = ['']): PolicyRule => ({ apiGroups, resources, verbs });

export const roleAggregator: FalsePositiveCase = {
  name: 'role-aggregator',
  description: 'fan-in, ClusterRole-aggregation style: an AggregatedRole keeps a Role whose rules are the normalized union of the rules of every RoleFragment its label selectors match, following fragments as they are created, edited and deleted',
  controllers: [roleAggregatorController],
  options: {
    objects: [
      {
        kind: AGGREGATED_ROLE,
        name: 'team',
        spec: [{ fragmentSelectors: [{ matchLabels: { [VIEW]: 'true' } }] }, { fragmentSelectors: [{ matchLabels: { [VIEW]: 'true' } }, { matchLabels: { [EDIT]: 'true' } }] }, { fragmentSelectors: [{ matchLabels: { [EDIT]: 'true' } }] }],
      },
      {
        kind: ROLE_FRAGMENT,
        name: 'view',
        labels: { [VIEW]: 'true' },
        spec: [{ rules: [rule(['pods', 'services'], ['get', 'list', 'watch'])] }, { rules: [rule(['pods'], ['list', 'get']), rule(['configmaps'], ['get'])] }],
      },
      {
        kind: ROLE_FRAGMENT,
        name: 'edit',
        labels: { [EDIT]: 'true' },
        spec: [{ rules: [rule(['pods'], ['create', 'delete', 'get']), rule(['deployments'], ['patch', 'update'], ['apps'])] }, { rules: [rule(['services'], ['update'])] }],
      },
      {
        kind: ROLE_FRAGMENT,
        name: 'shared',
        labels: { [VIEW]: 'true', [EDIT]: 'true' },
        spec: [{ rules: [rule(['events'], ['list'], ['', 'events.k8s.io'])] }, { rules: [] }],
      },
    ],
    maxObjects: 4,
  },
  properties: [convergence({ converged: aggregatesSettled })],
  buggy: {
    controllers: [define('merge')],
    caughtBy: ['convergence', 'recovery', 'same-end-state'],
    world: { maxObjects: 3, maxActions: 3 },
    why: 'it unions the fragments\' rules with the Role\'s current ones instead of replacing them: a fragment deleted or edited, or a selector that stops matching one, never takes its permissions away',
  },
};
