import { defineController, isStoreError, type ControllerDefinition, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { DEFAULT_HISTORY } from '../../properties/_internals/history.js';
import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { recovery } from '../../properties/recovery.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { sameEndState } from '../../properties/same-end-state.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * Run objects with history limits (Tekton / Argo Workflows triggers, CronJob's
 * successful/failedJobsHistoryLimit): a `Pipeline` makes one `PipelineRun` (generateName, owned,
 * labelled with its trigger) for each value of spec.trigger a person sets (a "run now" button),
 * and keeps the last 2 succeeded and the last 1 failed runs, never the run of the current trigger,
 * deleting older ones with a uid precondition. Whether the current trigger already has its run is
 * asked of the API server (a live list by label), never of its own status: a create whose status
 * write was lost, or a cache behind its own create, must not start the run twice. A second
 * controller, the runner, finishes a run 1 s after it starts (Failed when the pipeline said so).
 * Written by the eleventh red team (rt51).
 *
 * Its twin keeps "which trigger has run" only in status.lastTrigger, written after the create:
 * when the create's answer is lost (a 504 after it was applied) or that status write fails (a 500,
 * a 409 from a concurrent edit, a crash), the next pass starts the same trigger's run again.
 */
export const PIPELINE = 'Pipeline';
export const PIPELINE_RUN = 'PipelineRun';
const TRIGGER = 'pipelines.example.com/trigger';
const PIPELINE_LABEL = 'pipelines.example.com/pipeline';
const KEEP_SUCCEEDED = 2;
const KEEP_FAILED = 1;
const RUN_MS = 1_000;

interface PipelineSpec {
  trigger: number;
  fail: boolean;
}
interface PipelineStatus {
  lastTrigger?: number;
  lastRun?: string;
  observedGeneration?: number;
}
interface RunSpec {
  trigger: number;
  fail: boolean;
}
interface RunStatus {
  phase?: 'Running' | 'Succeeded' | 'Failed';
  startedAt?: number;
}
type Run = StoredObject<RunSpec, RunStatus>;

const byAge = (a: Run, b: Run): number => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || a.metadata.name.localeCompare(b.metadata.name);

function runHistory(mistake: 'none' | 'status-remembers'): ControllerDefinition {
  return defineController({
    name: 'pipeline-trigger',
    for: PIPELINE,
    owns: [PIPELINE_RUN],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const p = await ctx.client.tryGet<PipelineSpec, PipelineStatus>(PIPELINE, ctx.key, { live: true });
      if (!p || p.metadata.deletionTimestamp !== undefined) return;
      const ns = p.metadata.namespace;
      const runs = (await ctx.client.list<RunSpec, RunStatus>(PIPELINE_RUN, { namespace: ns, labelSelector: { matchLabels: { [PIPELINE_LABEL]: p.metadata.name } }, live: true })).filter((r) => controlledBy(r, p) && r.metadata.deletionTimestamp === undefined);
      let current = runs.filter((r) => r.spec.trigger === p.spec.trigger).sort(byAge)[0];
      const due = mistake === 'status-remembers' ? p.status.lastTrigger !== p.spec.trigger : current === undefined;
      if (p.spec.trigger > 0 && due) {
        current = await ctx.client.create<RunSpec, RunStatus>({
          apiVersion: 'pipelines.example.com/v1',
          kind: PIPELINE_RUN,
          metadata: { generateName: `${p.metadata.name}-`, namespace: ns, labels: { [PIPELINE_LABEL]: p.metadata.name, [TRIGGER]: String(p.spec.trigger) }, ownerReferences: [controllerRef(p)] },
          spec: { trigger: p.spec.trigger, fail: p.spec.fail },
        });
      }
      // history: the newest finished runs of each outcome, never the current trigger's run
      const finished = runs.filter((r) => r !== current && r.spec.trigger !== p.spec.trigger).sort(byAge).reverse();
      const doomed = [...finished.filter((r) => r.status.phase === 'Succeeded').slice(KEEP_SUCCEEDED), ...finished.filter((r) => r.status.phase === 'Failed').slice(KEEP_FAILED)];
      for (const r of doomed) {
        try {
          await ctx.client.delete(PIPELINE_RUN, { namespace: ns, name: r.metadata.name }, { preconditions: { uid: r.metadata.uid } });
        } catch (err) {
          if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
        }
      }
      await writeStatus(ctx, p, { ...(p.spec.trigger > 0 ? { lastTrigger: p.spec.trigger } : {}), ...(current ? { lastRun: current.metadata.name } : {}), observedGeneration: p.metadata.generation });
    },
  });
}

/** The runner: a PipelineRun runs for RUN_MS, then Succeeded (Failed when its pipeline asked for a failing run). */
export const pipelineRunner = defineController({
  name: 'pipeline-runner',
  for: PIPELINE_RUN,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const r = await ctx.client.tryGet<RunSpec, RunStatus>(PIPELINE_RUN, ctx.key, { live: true });
    if (!r || r.metadata.deletionTimestamp !== undefined || r.status.phase === 'Succeeded' || r.status.phase === 'Failed') return;
    const now = ctx.clock.now();
    if (r.status.startedAt === undefined) {
      await ctx.client.updateStatus({ ...r, status: { phase: 'Running', startedAt: now } });
      return { requeueAfter: RUN_MS };
    }
    if (now - r.status.startedAt < RUN_MS) return { requeueAfter: RUN_MS - (now - r.status.startedAt) };
    await ctx.client.updateStatus({ ...r, status: { ...r.status, phase: r.spec.fail ? 'Failed' : 'Succeeded' } });
  },
});

export const runHistoryController = runHistory('none');

/** Never two live runs of one pipeline's trigger (each press of the button runs once). */
function oneRunPerTrigger(view: WorldView): true | string {
  const seen = new Map<string, string>();
  for (const r of view.list(PIPELINE_RUN)) {
    if (r.metadata.deletionTimestamp !== undefined) continue;
    const owner = r.metadata.ownerReferences.find((o) => o.controller === true)?.uid ?? '';
    const k = `${owner}/${String(r.spec['trigger'])}`;
    const other = seen.get(k);
    if (other !== undefined) return `PipelineRuns ${other} and ${r.metadata.name} both run trigger ${String(r.spec['trigger'])} of ${r.metadata.labels[PIPELINE_LABEL] ?? '?'}`;
    seen.set(k, r.metadata.name);
  }
  return true;
}

/** Each Pipeline's current trigger has a finished run, and its history is within the limits. */
function settled(view: WorldView): true | string {
  for (const p of view.list(PIPELINE)) {
    if (p.metadata.deletionTimestamp !== undefined) continue;
    const spec = p.spec as unknown as PipelineSpec;
    const runs = view.list(PIPELINE_RUN).filter((r) => r.metadata.ownerReferences.some((o) => o.controller === true && o.uid === p.metadata.uid)) as unknown as Run[];
    const current = runs.find((r) => r.spec.trigger === spec.trigger);
    if (spec.trigger > 0 && current?.status.phase !== 'Succeeded' && current?.status.phase !== 'Failed') return `${p.metadata.name}: trigger ${spec.trigger} has ${current ? `a ${current.status.phase ?? 'new'} run` : 'no run'}`;
    const rest = runs.filter((r) => r !== current);
    const ok = rest.filter((r) => r.status.phase === 'Succeeded').length;
    const failed = rest.filter((r) => r.status.phase === 'Failed').length;
    if (ok > KEEP_SUCCEEDED || failed > KEEP_FAILED) return `${p.metadata.name} keeps ${ok} succeeded and ${failed} failed earlier runs`;
  }
  return true;
}

// which runs exist is history: a trigger set and replaced before the controller saw it never runs
const RUNS = { kind: PIPELINE_RUN, limit: 1 + KEEP_SUCCEEDED + KEEP_FAILED };

export const runHistoryCase: FalsePositiveCase = {
  name: 'run-history',
  description: 'run objects with history limits: a Pipeline makes one generateName PipelineRun per value of spec.trigger (asked of a live list by label, never of its status), a runner finishes it, and the last 2 succeeded and 1 failed runs are kept',
  controllers: [runHistoryController, pipelineRunner],
  options: {
    objects: { kind: PIPELINE, name: 'build', spec: [{ trigger: 1, fail: false }, { trigger: 2, fail: true }, { trigger: 3, fail: false }, { trigger: 4, fail: false }] },
    // one Pipeline: Pipelines share nothing, and each run's runner and history passes make the world's events grow fast
    maxObjects: 1,
  },
  properties: [
    safetyInvariants({ invariants: { 'one run per trigger': oneRunPerTrigger } }),
    convergence({ converged: settled }),
    sameEndState({ history: [...DEFAULT_HISTORY, RUNS] }),
    recovery({ history: [...DEFAULT_HISTORY, RUNS] }),
    noExtraDestructiveActions({ history: [...DEFAULT_HISTORY, RUNS] }),
  ],
  buggy: {
    controllers: [runHistory('status-remembers'), pipelineRunner],
    caughtBy: ['safety-invariants'],
    why: "it remembers which trigger ran only in status, written after the create: when the create's answer is lost or that write fails, the same trigger runs twice",
  },
};
