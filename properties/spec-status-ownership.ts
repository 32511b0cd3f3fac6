import { defineProperty, type Verdict } from '../src/harness/property.js';
import { isBuiltin } from '../src/store/key-order.js';
import { explanation, fmtList, fmtWrite, letFacts } from '../src/report/explain.js';
import { fmtReconcile } from './_internals/last-actions.js';
import { primaryKindOf, timelineOf, type TimelineWrite } from './_internals/timeline.js';

/** Options of {@link specStatusOwnership}. @public */
export interface SpecStatusOwnershipOptions {
  /** Spec paths a controller may write on its primary object (defaulting webhooks-style fields). @defaultValue [] */
  allowSpecPaths: string[];
}

function specPaths(w: TimelineWrite): string[] {
  return w.changed.filter((p) => p === 'spec' || p.startsWith('spec.'));
}

/**
 * Spec/status ownership (SPEC §1, §5): controllers never write the spec of the primary objects
 * the user declared (users own desired state; metadata such as finalizers and labels is fine;
 * objects of the primary kind the controller created itself, such as a secret copier's copies,
 * are its own), and users never write status (controllers own observed state).
 * @example properties.specStatusOwnership({ allowSpecPaths: ['spec.defaultedField'] })
 * @public
 */
export const specStatusOwnership = defineProperty<SpecStatusOwnershipOptions>({
  name: 'spec-status-ownership',
  description: 'controllers never write their primary object spec; users never write status',
  defaults: { allowSpecPaths: [] },
  validate: (o) => (!Array.isArray(o.allowSpecPaths) ? 'allowSpecPaths must be an array of dotted paths' : undefined),
  judge: (run, o): Verdict => {
    const allowed = (p: string) => o.allowSpecPaths.some((a) => p === a || p.startsWith(`${a}.`));
    const writes = timelineOf(run).writes;
    // desired state is the user's only where the user declared it: a copier's own Secrets are its to write
    const declared = new Set(writes.filter((w) => w.verb === 'create' && w.error === undefined && w.uid !== undefined && (w.actor === 'user' || w.actor === 'environment:recreation')).map((w) => w.uid!));
    for (const w of writes) {
      if (w.error !== undefined || w.noop) continue;
      if (w.actor.startsWith('controller:') && primaryKindOf(run, w.actor) === w.kind && w.verb !== 'create' && w.uid !== undefined && declared.has(w.uid)) {
        const paths = specPaths(w).filter((p) => !allowed(p));
        if (paths.length === 0) continue;
        const then = [`${fmtWrite(w)}: ${fmtList(paths, 3)} belong to the user, who declares desired state there`];
        if (w.reconcile) then.push(`the write came from the ${fmtReconcile(w.reconcile)}`);
        then.push("write observations to status (through the status subresource) and leave spec to the user; a user's next apply would undo the change");
        return fail(run, w, `controller wrote spec: ${fmtWrite(w)}`, then, paths);
      }
      // a write through the main resource of a built-in kind carries no status: what it changed there,
      // the API server did (a Service updated away from LoadBalancer loses its load balancer status)
      const serverStatus = (w.verb === 'update' || w.verb === 'patch') && isBuiltin(w.kind);
      if (w.actor === 'user' && (w.verb === 'updateStatus' || w.verb === 'patchStatus' || (!serverStatus && w.changed.some((p) => p === 'status' || p.startsWith('status.'))))) {
        const paths = w.changed.filter((p) => p === 'status' || p.startsWith('status.'));
        return fail(run, w, `user wrote status: ${fmtWrite(w)}`, [`${fmtWrite(w)}: status is observed state, owned by the controller, which will overwrite it`], paths);
      }
    }
    return { ok: true };
  },
});

function fail(run: Parameters<typeof timelineOf>[0], w: TimelineWrite, summary: string, then: string[], paths: string[]): Verdict {
  return {
    ok: false,
    summary,
    explanation: explanation(letFacts(run.trace, { until: w.t }), then),
    evidence: { t: w.t, actor: w.actor, verb: w.verb, kind: w.kind, key: w.key, paths },
  };
}
