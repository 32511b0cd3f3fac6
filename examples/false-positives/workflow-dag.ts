import { defineController, isStoreError, podLifecycle, type Client, type JsonObject, type NewObject, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A DAG workflow engine, as Argo Workflows' workflow-controller runs one. A `Workflow` lists
 * `spec.tasks` (a name, a container image, `dependencies` on other tasks) and a `retryLimit`
 * (Argo's `retryStrategy.limit`, retryPolicy Always: a failed Pod and one deleted under it, "pod
 * deleted", are both retried). The controller starts a task (makes its Pod) once every dependency
 * has Succeeded, records every node in `status.nodes` (phase, attempts, the current attempt's Pod),
 * retries a failed attempt with a new Pod (`<workflow>-<task>-<attempt>`) while attempts are left,
 * and marks the Workflow Succeeded once every task has, or Failed once a task has run out of
 * attempts (failFast, Argo's DAG default: no new task starts after a failure; tasks whose
 * dependencies can no longer succeed are Omitted). A submitted Workflow's tasks never change
 * (validation), as Argo resubmits rather than edits. Deleting it lets owner references collect
 * the Pods.
 *
 * The attempt count is the Workflow's own record, never the controller's memory: attempts are
 * counted from `status.nodes` and from the task's Pods listed live (a Pod made just before a crash,
 * not yet recorded, is counted by its attempt index), so a crash, a restart on a fresh cache or a
 * failover never grants a task a retry it has used. Pods are made before the status names them
 * (a fixed name per attempt: a create repeated after a crash answers AlreadyExists), and the status
 * is written with the Workflow's resourceVersion.
 *
 * The case's own oracle, `dag-respected` (safety-invariants), at every write: a task's Pod exists
 * only once each of its dependencies has Succeeded (its node, or a Succeeded Pod of it, judged
 * while some Pod of the dependency is there), and no task ever has an attempt beyond `retryLimit`
 * retries.
 *
 * Its buggy twin counts retries in memory, per controller incarnation (a map from workflow and
 * task to retries used), as a first version of such an engine does: a crash or a failover while a
 * task keeps failing forgets the retries it used, and the task is run again beyond its limit.
 */
export const WORKFLOW = 'Workflow';
const WORKFLOW_LABEL = 'workflows.argoproj.io/workflow';
const TASK_LABEL = 'workflows.argoproj.io/task';
const ATTEMPT_ANNOTATION = 'workflows.argoproj.io/attempt';
const RUN_MS = 'steadystate.dev/run-ms';
const EXIT_CODE = 'steadystate.dev/exit-code';

interface TaskSpec {
  name: string;
  image: string;
  dependencies?: string[];
  /** How long the container runs (the simulation's stand-in for what it does). */
  durationMs: number;
  /** Its exit code (non-zero: the step's script fails every time it runs). @defaultValue 0 */
  exitCode?: number;
}
interface WorkflowSpec {
  tasks: TaskSpec[];
  retryLimit: number;
}
type NodePhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Omitted';
interface NodeStatus {
  phase: NodePhase;
  attempts: number;
  podName?: string;
  message?: string;
}
interface WorkflowStatus {
  phase?: 'Running' | 'Succeeded' | 'Failed';
  nodes?: Record<string, NodeStatus>;
}
type Workflow = StoredObject<WorkflowSpec, WorkflowStatus>;

const alive = (o: { metadata: { deletionTimestamp?: string | undefined } }) => o.metadata.deletionTimestamp === undefined;
const podName = (wf: string, task: string, attempt: number) => `${wf}-${task}-${attempt}`;
/**
 * A Pod's task and attempt, from its name (`<workflow>-<task>-<attempt>`): a name never changes,
 * while labels and annotations are anyone's to edit (found by the guided hunt: drift rewrote the
 * attempt annotation of a running Pod, the count read from it was NaN, and the status write it went
 * into was refused on every reconcile from then on).
 */
function attemptOf(p: StoredObject, wf: string, task: string): number | undefined {
  const prefix = `${wf}-${task}-`;
  const rest = p.metadata.name.startsWith(prefix) ? p.metadata.name.slice(prefix.length) : '';
  return /^\d+$/.test(rest) ? Number(rest) : undefined;
}
const phaseOf = (p: StoredObject | undefined) => (typeof p?.status['phase'] === 'string' ? p.status['phase'] : undefined);
const done = (n: NodeStatus | undefined) => n !== undefined && (n.phase === 'Succeeded' || n.phase === 'Failed' || n.phase === 'Omitted');

/** The tasks in an order where each comes after its dependencies (spec order among the ready ones). */
function topological(tasks: readonly TaskSpec[]): TaskSpec[] {
  const out: TaskSpec[] = [];
  const placed = new Set<string>();
  while (out.length < tasks.length) {
    const next = tasks.find((t) => !placed.has(t.name) && (t.dependencies ?? []).every((d) => placed.has(d) || !tasks.some((x) => x.name === d)));
    if (!next) break; // a cycle: the rest never starts
    out.push(next);
    placed.add(next.name);
  }
  return out;
}

/** The buggy twin's memory: per controller incarnation (its client), retries used per workflow uid and task. */
const memory = new WeakMap<Client, Map<string, number>>();

function define(mistake: 'none' | 'memory-retries') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const wf = await ctx.client.tryGet<WorkflowSpec, WorkflowStatus>(WORKFLOW, ctx.key, { live: true });
    if (!wf || !alive(wf)) return undefined;
    const ns = wf.metadata.namespace;
    // its Pods by owner reference (a label someone edited would hide one, and its task would run again)
    const pods = (await ctx.client.list('Pod', { ...(ns !== undefined ? { namespace: ns } : {}), live: true })).filter((p) => controlledBy(p, wf));
    let mem = memory.get(ctx.client);
    if (!mem) memory.set(ctx.client, (mem = new Map()));
    const nodes: Record<string, NodeStatus> = {};
    const prior = wf.status.nodes ?? {};
    let anyFailed = Object.values(prior).some((n) => n.phase === 'Failed');

    for (const task of topological(wf.spec.tasks)) {
      const mine = pods.filter((p) => attemptOf(p, wf.metadata.name, task.name) !== undefined);
      const was = prior[task.name];
      if (done(was)) {
        nodes[task.name] = was!;
        continue;
      }
      // attempts made: as recorded, or more when a Pod made before a crash was not recorded yet
      let attempts = Math.max(was?.attempts ?? 0, ...mine.map((p) => attemptOf(p, wf.metadata.name, task.name)! + 1));
      const deps = (task.dependencies ?? []).map((d) => nodes[d]);
      if (attempts === 0) {
        if (deps.some((n) => n === undefined || n.phase === 'Failed' || n.phase === 'Omitted')) {
          nodes[task.name] = { phase: 'Omitted', attempts: 0, message: 'a dependency did not succeed' };
          continue;
        }
        if (anyFailed || !deps.every((n) => n!.phase === 'Succeeded')) {
          nodes[task.name] = { phase: 'Pending', attempts: 0 };
          continue;
        }
        const made = await startAttempt(ctx, wf, task, 0);
        if (!made) return { requeueAfter: 1000 }; // a Pod of an earlier workflow of this name: the garbage collector removes it
        nodes[task.name] = { phase: 'Running', attempts: 1, podName: made };
        continue;
      }
      const current = mine.find((p) => attemptOf(p, wf.metadata.name, task.name) === attempts - 1);
      const phase = phaseOf(current);
      if (phase === 'Succeeded') {
        nodes[task.name] = { phase: 'Succeeded', attempts, podName: podName(wf.metadata.name, task.name, attempts - 1) };
        continue;
      }
      if (current && phase !== 'Failed') {
        nodes[task.name] = { phase: 'Running', attempts, podName: current.metadata.name };
        continue;
      }
      // the attempt failed (its Pod Failed, or was deleted under it): retried while attempts are left
      const message = current ? `attempt ${attempts} failed` : `attempt ${attempts}: pod deleted`;
      const key = `${wf.metadata.uid}/${task.name}`;
      // BUG (memory-retries): the retries used are what this incarnation remembers
      const used = mistake === 'none' ? attempts - 1 : (mem.get(key) ?? 0);
      if (used < wf.spec.retryLimit) {
        const made = await startAttempt(ctx, wf, task, attempts);
        if (!made) return { requeueAfter: 1000 };
        mem.set(key, used + 1);
        attempts++;
        nodes[task.name] = { phase: 'Running', attempts, podName: made, message };
        continue;
      }
      nodes[task.name] = { phase: 'Failed', attempts, podName: podName(wf.metadata.name, task.name, attempts - 1), message: `${message}; no retries left (limit ${wf.spec.retryLimit})` };
      anyFailed = true;
    }
    // tasks dropped for a cycle never run
    for (const t of wf.spec.tasks) nodes[t.name] ??= { phase: 'Omitted', attempts: 0, message: 'its dependencies form a cycle' };

    const all = Object.values(nodes);
    const running = all.some((n) => n.phase === 'Running');
    const phase: WorkflowStatus['phase'] = all.every((n) => n.phase === 'Succeeded') ? 'Succeeded' : anyFailed && !running ? 'Failed' : 'Running';
    // with the resourceVersion read: a 409 retries, and the Pods made are found again by their attempt index
    await writeStatus(ctx, wf, { phase, nodes });
    return undefined;
  }
  return defineController({ name: 'workflow-controller', for: WORKFLOW, owns: ['Pod'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

/** Makes the Pod of a task's attempt; its name, or undefined when that name is held by a Pod of another owner. */
async function startAttempt(ctx: ReconcileContext, wf: Workflow, task: TaskSpec, attempt: number): Promise<string | undefined> {
  const name = podName(wf.metadata.name, task.name, attempt);
  const pod: NewObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: wf.metadata.namespace,
      labels: { [WORKFLOW_LABEL]: wf.metadata.name, [TASK_LABEL]: task.name },
      annotations: { [ATTEMPT_ANNOTATION]: String(attempt), [RUN_MS]: String(task.durationMs), [EXIT_CODE]: String(task.exitCode ?? 0) },
      ownerReferences: [controllerRef(wf)],
    },
    spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: task.image }] },
  };
  try {
    await ctx.client.create(pod);
    return name;
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
    const have = await ctx.client.get('Pod', { namespace: wf.metadata.namespace, name }, { live: true });
    return controlledBy(have, wf) ? name : undefined;
  }
}

export const workflowController = define('none');

/** A task's Pod only after its dependencies Succeeded; no attempt beyond retryLimit retries. */
export const dagRespected = safetyInvariants({
  invariants: {
    'tasks start after their dependencies succeeded, within their retry limit': (view) => {
      const pods = view.list('Pod');
      for (const wf of view.list(WORKFLOW) as unknown as Workflow[]) {
        const mine = pods.filter((p) => controlledBy(p, wf));
        for (const p of mine) {
          const task = wf.spec.tasks.find((t) => attemptOf(p, wf.metadata.name, t.name) !== undefined);
          if (!task) continue;
          const attempt = attemptOf(p, wf.metadata.name, task.name)!;
          if (attempt > wf.spec.retryLimit) return `workflow ${wf.metadata.name}: task ${task.name} has attempt ${attempt + 1} (${p.metadata.name}), its retry limit is ${wf.spec.retryLimit}`;
          for (const d of task.dependencies ?? []) {
            // judged while the dependency's Pods are there to tell: the garbage collector of a
            // workflow deleted in the foreground (or a node's eviction) removes them in any order,
            // also before the status recorded their success (found by the hunt: checkout's Pod went
            // first while status writes were failing, and build's Pod was left)
            const depPods = mine.filter((q) => attemptOf(q, wf.metadata.name, d) !== undefined);
            const succeeded = wf.status.nodes?.[d]?.phase === 'Succeeded' || depPods.some((q) => phaseOf(q) === 'Succeeded') || depPods.length === 0;
            if (!succeeded) return `workflow ${wf.metadata.name}: task ${task.name} runs (${p.metadata.name}) before its dependency ${d} succeeded`;
          }
        }
      }
      return true;
    },
  },
});

/** Settled: every workflow has ended (its tasks run seconds, the settle phase half a minute). */
export function workflowsSettled(view: WorldView): true | string {
  for (const wf of view.list(WORKFLOW) as unknown as Workflow[]) {
    if (alive(wf) && wf.status.phase !== 'Succeeded' && wf.status.phase !== 'Failed') return `workflow ${wf.metadata.name} is ${wf.status.phase ?? 'not started'}: ${JSON.stringify(wf.status.nodes ?? {})}`;
  }
  return true;
}

const task = (name: string, durationMs: number, dependencies: string[] = [], exitCode = 0): JsonObject => ({ name, image: `ci/${name}:1`, durationMs, ...(dependencies.length > 0 ? { dependencies } : {}), ...(exitCode !== 0 ? { exitCode } : {}) });

export const workflowDag: FalsePositiveCase = {
  name: 'workflow-dag',
  description: 'an Argo-Workflows-like DAG: a Pod per task once its dependencies Succeeded, node phases and attempts in status.nodes, a failed or deleted attempt retried under a new Pod name up to retryLimit (attempts counted from status and live Pods), the Workflow Succeeded or Failed (failFast), Pods collected by owner references',
  controllers: [workflowController],
  options: {
    objects: [
      // a diamond: checkout, then build and lint side by side, then package
      { kind: WORKFLOW, names: ['ci'], spec: [{ tasks: [task('checkout', 1000), task('build', 2000, ['checkout']), task('lint', 1000, ['checkout']), task('package', 1000, ['build', 'lint'])], retryLimit: 1 }] },
      // a flaky suite that fails every time: run 1 + 2 retries, then the workflow fails and report is Omitted
      { kind: WORKFLOW, names: ['nightly'], spec: [{ tasks: [task('setup', 1000), task('e2e', 1000, ['setup'], 1), task('report', 1000, ['e2e'])], retryLimit: 2 }] },
    ],
    // a submitted workflow is not edited (Argo resubmits)
    validation: { immutable: { [WORKFLOW]: ['spec.tasks', 'spec.retryLimit'] } },
    environment: [podLifecycle],
  },
  properties: [dagRespected, convergence({ converged: workflowsSettled }), ...podEndStateProperties()],
  buggy: {
    controllers: [define('memory-retries')],
    caughtBy: ['safety-invariants'],
    why: 'it counts a task\'s retries in memory: a crash or failover while a task keeps failing forgets the retries used, and the task runs again beyond its retryLimit',
  },
};
