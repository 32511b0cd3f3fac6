import { defineController, isStoreError, job, podLifecycle, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { jobComplete, jobFailed, shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Report` renders its query with a Job of a fixed name (`<name>-render`). A Job's pod template
 * is immutable, so a changed query cannot be patched in: the controller deletes the Job (with a
 * uid precondition, so it never deletes a newer one) and creates it again under the same name once
 * the old one is gone (a create that meets the old one gets AlreadyExists and waits). The spec a
 * Job renders is recorded in an annotation; status says which spec the finished render was for.
 */
export const REPORT = 'Report';

interface ReportSpec {
  query: string;
  image: string;
}
interface ReportStatus {
  phase?: string;
  renderedHash?: string;
  observedGeneration?: number;
}

const HASH = 'report.example.com/spec-hash';

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  const r = await ctx.client.tryGet<ReportSpec, ReportStatus>(REPORT, ctx.key, { live: true });
  if (!r || r.metadata.deletionTimestamp !== undefined) return;
  const ns = r.metadata.namespace;
  const name = `${r.metadata.name}-render`;
  const hash = shortHash(`${r.spec.image}\u0000${r.spec.query}`);
  let j = await ctx.client.tryGet('Job', { namespace: ns, name }, { live: true });
  if (j && !controlledBy(j, r)) return { requeueAfter: 1000 }; // another Report's (or an old one's): the GC removes it
  if (j && j.metadata.annotations[HASH] !== hash) {
    // the template is immutable: replace the Job, never patch it
    await deleteIfPresent(ctx, 'Job', { namespace: ns, name }, { uid: j.metadata.uid });
    await writeStatus(ctx, r, { phase: 'Rendering', ...(r.status.renderedHash !== undefined ? { renderedHash: r.status.renderedHash } : {}), observedGeneration: r.metadata.generation });
    return { requeueAfter: 500 };
  }
  if (!j) {
    try {
      j = await ctx.client.create({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name, namespace: ns, labels: { report: r.metadata.name }, annotations: { [HASH]: hash }, ownerReferences: [controllerRef(r)] },
        spec: { backoffLimit: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'render', image: r.spec.image, args: ['render', `--query=${r.spec.query}`] }] } } },
      });
    } catch (err) {
      // the old Job is still being removed: try again shortly
      if (isStoreError(err, 'AlreadyExists')) return { requeueAfter: 500 };
      throw err;
    }
  }
  const done = jobComplete(j);
  const phase = done ? 'Rendered' : jobFailed(j) ? 'Failed' : 'Rendering';
  const renderedHash = done ? hash : r.status.renderedHash;
  await writeStatus(ctx, r, { phase, ...(renderedHash !== undefined ? { renderedHash } : {}), observedGeneration: r.metadata.generation });
}

export const reportController = defineController({
  name: 'report',
  for: REPORT,
  owns: ['Job'],
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const reportRender: FalsePositiveCase = {
  name: 'report-render',
  description: 'a Report renders with a Job of a fixed name; a changed query replaces the Job (its template is immutable): delete with a uid precondition, create again once it is gone',
  controllers: [reportController],
  options: {
    objects: { kind: REPORT, name: 'sales', spec: [{ query: 'by-region', image: 'render:1' }, { query: 'by-month', image: 'render:1' }, { query: 'by-region', image: 'render:2' }] },
    environment: [job, podLifecycle],
  },
  properties: podEndStateProperties(),
};
