import { defineController, type ControllerDefinition } from '../../../src/index.js';
import { singleChildCorrect } from '../single-child/correct.js';
import { APP, POD, type AppSpec, type AppStatus } from '../single-child/app.js';

/**
 * A "last seen generation" map keyed by App uid: the controller logs "new spec" once per
 * generation it reconciles (as it would record a Kubernetes Event), and keeps the correct
 * single-child reconcile for the rest. Correct in production: the map lives in the process, and
 * a restarted process logs once more, harmlessly.
 *
 * `where: 'module'` keeps the map in a module-level variable, as a Go controller keeps it in its
 * struct. steadystate runs all of a check's simulations in one process and gives an object the
 * same uid in each (so a run and its re-run agree), so the entries of one simulation make the
 * next skip its logs: the determinism re-run diverges, a false alarm about correct code. `where:
 * 'state'` keeps it in `ctx.state`, fresh for each replica incarnation, as a process's memory is.
 */
export function lastSeenGeneration(name: string, where: 'module' | 'state'): ControllerDefinition {
  // one map per definition made, outliving every simulation that runs it
  const moduleLevel = new Map<string, number>();
  return defineController({
    name,
    for: APP,
    owns: [POD],
    resyncPeriodMs: singleChildCorrect.resyncPeriodMs,
    state: () => new Map<string, number>(),
    async reconcile(ctx) {
      const seen = where === 'module' ? moduleLevel : ctx.state;
      const app = await ctx.client.tryGet<AppSpec, AppStatus>(APP, ctx.key);
      if (app && seen.get(app.metadata.uid) !== app.metadata.generation) {
        seen.set(app.metadata.uid, app.metadata.generation);
        ctx.log.info('new spec', { app: ctx.key, generation: app.metadata.generation, image: app.spec.image });
      }
      return singleChildCorrect.reconcile(ctx);
    },
  });
}
