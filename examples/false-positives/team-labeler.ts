import { defineController, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Team` stamps its labels (team name, cost center) onto every Deployment that names the team
 * in an annotation: Deployments it neither owns nor created, so it merge-patches only the two
 * label keys it manages and leaves everything else to their owners. A Deployment that stops
 * naming the team loses the labels; a deleted Team removes them behind a finalizer.
 */
export const TEAM = 'Team';
const OWNER_ANNOTATION = 'team.example.com/owner';
const TEAM_LABEL = 'team.example.com/name';
const COST_LABEL = 'team.example.com/cost-center';
const FINALIZER = 'team.example.com/labels';

interface TeamSpec {
  costCenter: string;
}
interface TeamStatus {
  deployments?: number;
  observedGeneration?: number;
}

const claims = (d: StoredObject, team: StoredObject<unknown, unknown>) => d.metadata.annotations[OWNER_ANNOTATION] === team.metadata.name && d.metadata.deletionTimestamp === undefined;

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const t = await ctx.client.tryGet<TeamSpec, TeamStatus>(TEAM, ctx.key, { live: true });
  if (!t) return;
  const deployments = await ctx.client.list('Deployment', { namespace: t.metadata.namespace });
  const ref = (d: StoredObject) => ({ namespace: d.metadata.namespace, name: d.metadata.name });
  const unlabel = async (d: StoredObject) => {
    if (d.metadata.labels[TEAM_LABEL] === t.metadata.name) await ctx.client.patch('Deployment', ref(d), { metadata: { labels: { [TEAM_LABEL]: null, [COST_LABEL]: null } } });
  };
  if (t.metadata.deletionTimestamp !== undefined) {
    if (!t.metadata.finalizers.includes(FINALIZER)) return;
    for (const d of await ctx.client.list('Deployment', { namespace: t.metadata.namespace, live: true })) await unlabel(d);
    await removeFinalizer(ctx, t, FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, t, FINALIZER)) return;
  let n = 0;
  for (const d of deployments) {
    if (claims(d, t)) {
      n++;
      if (d.metadata.labels[TEAM_LABEL] !== t.metadata.name || d.metadata.labels[COST_LABEL] !== t.spec.costCenter) {
        await ctx.client.patch('Deployment', ref(d), { metadata: { labels: { [TEAM_LABEL]: t.metadata.name, [COST_LABEL]: t.spec.costCenter } } });
      }
    } else await unlabel(d);
  }
  await writeStatus(ctx, t, { deployments: n, observedGeneration: t.metadata.generation });
}

export const teamController = defineController({
  name: 'team-labels',
  for: TEAM,
  watches: [
    {
      kind: 'Deployment',
      // the team it names now, and the team whose labels it still carries
      map: (d) => [...new Set([d.metadata.annotations[OWNER_ANNOTATION], d.metadata.labels[TEAM_LABEL]].filter((x): x is string => x !== undefined))].map((name) => `${d.metadata.namespace}/${name}`),
    },
  ],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

const web = (replicas: number) => ({ replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } });

export const teamLabeler: FalsePositiveCase = {
  name: 'team-labeler',
  description: 'a Team merge-patches its two labels onto Deployments it neither owns nor created, and removes them behind a finalizer',
  controllers: [teamController],
  options: {
    objects: [
      { kind: TEAM, name: 'payments', spec: [{ costCenter: 'cc-100' }, { costCenter: 'cc-200' }] },
      { kind: 'Deployment', name: 'api', annotations: { [OWNER_ANNOTATION]: 'payments-0' }, spec: [web(2), web(3)] },
    ],
    maxObjects: 4,
  },
  properties: endStateProperties(),
};
