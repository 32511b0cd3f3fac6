import type { EnvironmentActor, FaultPlan, RunRecord, Scenario, StoredObject, WriteRecord } from '../../../src/index.js';

/**
 * The batch fixture: a `Batch` counts its finished `Task`s in `status.succeeded`. The tasks
 * are created by the user and run by an environment actor (`task-runner`): each goes Pending →
 * Running → Succeeded, so a watcher can observe every transition, unless it falls behind.
 */
export const BATCH = 'Batch';
export const TASK = 'Task';

export interface BatchStatus {
  succeeded?: number;
  /** Last phase seen per task (the buggy controller's bookkeeping). */
  seen?: Record<string, string>;
}
export interface TaskStatus {
  phase?: 'Running' | 'Succeeded';
}

/** Key of the Batch a Task belongs to (label `batch`). */
export function batchOf(task: StoredObject): string[] {
  const b = task.metadata.labels['batch'];
  return b === undefined ? [] : [`${task.metadata.namespace ?? ''}/${b}`.replace(/^\//, '')];
}

/**
 * An environment actor that runs each Task: Running `runAfterMs` after it is created,
 * Succeeded `finishAfterMs` later (status writes by `environment:task-runner`).
 */
export const taskRunner: EnvironmentActor = {
  name: 'task-runner',
  description: 'moves each Task to Running, then Succeeded, on the virtual clock',
  install(world, params) {
    const runAfter = typeof params['runAfterMs'] === 'number' ? params['runAfterMs'] : 300;
    const finishAfter = typeof params['finishAfterMs'] === 'number' ? params['finishAfterMs'] : 300;
    let live = true;
    const setPhase = (w: WriteRecord, phase: string) => {
      if (!live) return;
      const [namespace, name] = w.key.split('/') as [string, string];
      if (world.store.peek(TASK, w.key)?.metadata.uid !== w.uid) return;
      world.store.patch('environment:task-runner', TASK, { namespace, name }, { status: { phase } }, { subresource: 'status' });
    };
    const onWrite = (w: WriteRecord) => {
      if (w.kind !== TASK || w.verb !== 'create' || w.error !== undefined) return;
      world.kernel.after(runAfter, () => setPhase(w, 'Running'));
      world.kernel.after(runAfter + finishAfter, () => setPhase(w, 'Succeeded'));
    };
    world.afterWrite.push(onWrite);
    return () => {
      live = false;
      const i = world.afterWrite.indexOf(onWrite);
      if (i >= 0) world.afterWrite.splice(i, 1);
    };
  },
};

function task(name: string): Scenario['workload'][number] {
  return { at: 200, type: 'create', object: { kind: TASK, metadata: { name, namespace: 'default', labels: { batch: 'nightly' } }, spec: {} } };
}

/** A Batch with three Tasks that all run from t=500 and finish at t=800. */
export function batchScenario(controller: string, faults: FaultPlan, seed = 1): Scenario {
  return {
    seed,
    controllers: [{ name: controller }],
    environment: [{ name: 'task-runner', params: { runAfterMs: 300, finishAfterMs: 300 } }],
    initialObjects: [],
    workload: [{ at: 100, type: 'create', object: { kind: BATCH, metadata: { name: 'nightly', namespace: 'default' }, spec: {} } }, task('extract'), task('transform'), task('load')],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

/** Healthy when status.succeeded equals the number of Succeeded tasks. */
export function judgeBatch(run: RunRecord): true | string {
  const b = run.finalObjects.find((o) => o.kind === BATCH) as unknown as StoredObject<Record<string, never>, BatchStatus> | undefined;
  if (!b) return 'the Batch is gone';
  const done = run.finalObjects.filter((o) => o.kind === TASK && (o.status as TaskStatus).phase === 'Succeeded').length;
  if (b.status.succeeded !== done) return `status.succeeded is ${String(b.status.succeeded)}, but ${done} tasks have Succeeded`;
  return true;
}
