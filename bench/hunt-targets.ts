/**
 * Every controller the project calls correct, with how to check it: the bug zoo's fixed twins
 * (with their entry's options and configured properties), the correct property targets, the
 * correct fault targets (with a `converged` predicate where their status has no
 * observedGeneration) and the level-triggered replicas controller. `bench/hunt-false-positives.ts`
 * checks them all; `test/properties/hunt-regressions.test.ts` replays what the hunt found.
 */
import { allFaults, defineProgram, type CheckOptions, type NewObject, type ControllerDefinition, type FaultModule, type Property, type StoredObject, type WorldView } from '../src/index.js';
import { defaultProperties } from '../properties/index.js';
import { convergence } from '../properties/convergence.js';
import { safetyInvariants } from '../properties/safety-invariants.js';
import { bugZoo } from '../examples/bug-zoo/index.js';
import { cronRunHistory, cronRunnerController, webAppController } from '../examples/client-node/steadystate.js';
import { recovery } from '../properties/recovery.js';
import { sameEndState } from '../properties/same-end-state.js';
import { loadStory } from '../src/story/load-story.js';
import { falsePositiveCorpus } from '../examples/false-positives/index.js';
import { falsePositiveStories, storyOptions } from '../examples/stories/false-positive-stories.js';
import { levelTriggered } from '../examples/replicas/level-triggered.js';
import { REPLICAS_KIND } from '../examples/replicas/replicas.js';
import { hotLoopCorrect } from '../examples/property-targets/hot-loop.js';
import { clampStatusCorrect, pollingCorrect, splitA, splitB } from '../examples/property-targets/widget-controllers.js';
import { podsCorrect, POD, RS } from '../examples/property-targets/pods.js';
import { dnsCorrect, dnsDownstream, DOMAIN } from '../examples/property-targets/dns.js';
import { bucketCorrect, BUCKET, storageDownstream } from '../examples/property-targets/bucket.js';
import { WIDGET } from '../examples/property-targets/widget.js';
import { queue, queueScaler, queueScalerConverged, queueScalerCorrect, queueTarget } from '../examples/property-targets/queue-scaler.js';
import { slotsHeld } from '../examples/operators/slot-claimer/slots.js';
import { LABEL as QUEUE_LABEL, queuesServed } from '../examples/operators/queue-scaler/queue.js';
import { widgetCorrect } from '../examples/fault-targets/api-conflict/correct.js';
import { widgetBuggy } from '../examples/fault-targets/api-conflict/buggy.js';
import { WIDGET as CONFLICT_WIDGET } from '../examples/fault-targets/api-conflict/widget.js';
import { batchCorrect } from '../examples/fault-targets/coalescing/correct.js';
import { batchBuggy } from '../examples/fault-targets/coalescing/buggy.js';
import { BATCH, TASK, taskRunner, type TaskStatus } from '../examples/fault-targets/coalescing/batch.js';
import { auditCorrect } from '../examples/fault-targets/duplication/correct.js';
import { auditBuggy } from '../examples/fault-targets/duplication/buggy.js';
import { AUDIT, CONFIG, type AuditSpec } from '../examples/fault-targets/duplication/audit.js';
import { shopCorrect } from '../examples/fault-targets/flaky-downstream/correct.js';
import { shopBuggy } from '../examples/fault-targets/flaky-downstream/buggy.js';
import { ORDER, shopDownstream } from '../examples/fault-targets/flaky-downstream/shop.js';
import { clusterCorrect } from '../examples/fault-targets/list-order/correct.js';
import { clusterBuggy } from '../examples/fault-targets/list-order/buggy.js';
import { CLUSTER, MEMBER } from '../examples/fault-targets/list-order/cluster.js';
import { databaseCorrect } from '../examples/fault-targets/recreation/correct.js';
import { databaseBuggy } from '../examples/fault-targets/recreation/buggy.js';
import { DATABASE } from '../examples/fault-targets/recreation/database.js';
import { siteCorrect } from '../examples/fault-targets/reordering/correct.js';
import { siteBuggy } from '../examples/fault-targets/reordering/buggy.js';
import { HASH, SITE, specHash, type SiteSpec } from '../examples/fault-targets/reordering/site.js';
import { singleChildCorrect } from '../examples/fault-targets/single-child/correct.js';
import { singleChildBuggy } from '../examples/fault-targets/single-child/buggy.js';
import { APP } from '../examples/fault-targets/single-child/app.js';
import { singleChildExpectations } from '../examples/fault-targets/in-memory-state/correct.js';
import { singleChildMemoryBuggy } from '../examples/fault-targets/in-memory-state/buggy.js';
import { reminderBuggy, reminderCorrect } from '../examples/fault-targets/reminder/sender.js';
import { mailDownstream, REMINDER } from '../examples/fault-targets/reminder/reminder.js';

/** One correct controller (or set sharing a world) and how to check it. */
export interface Target {
  name: string;
  controllers: readonly ControllerDefinition[];
  options: Omit<CheckOptions, 'properties' | 'faults' | 'runs' | 'seed'>;
  /** Properties configured for this controller; they replace the built-in of the same name. */
  properties?: readonly Property[];
  extraFaults?: readonly FaultModule[];
  /** Fault kinds left out, with the reason (the controller does not claim to survive them). */
  withoutFaults?: Record<string, string>;
  /** Built-in properties the target's design does not promise, with why (FalsePositiveCase.withoutProperties). */
  withoutProperties?: Readonly<Record<string, string>>;
  /** Cap on `--max-objects` for this target. */
  maxObjects?: number;
}

/** A `converged` predicate from a per-object test of the primary kind. */
export function every(kind: string, ok: (o: StoredObject, view: WorldView) => true | string): (view: WorldView) => boolean | string {
  return (view) => {
    for (const o of view.list(kind)) {
      if (o.metadata.deletionTimestamp !== undefined) continue;
      const r = ok(o, view);
      if (r !== true) return `${kind} ${o.metadata.name}: ${r}`;
    }
    return true;
  };
}

const zoo: Target[] = bugZoo.map((e) => ({ name: `zoo:${e.name}`, controllers: e.correct, options: e.options, properties: e.properties, extraFaults: e.extraFaults }));

const podsInvariant = safetyInvariants({
  invariants: {
    'at most replicas+1 pods': (view) => {
      for (const rs of view.list(RS)) {
        const n = view.list(POD).filter((p) => p.metadata.ownerReferences.some((r) => r.uid === rs.metadata.uid)).length;
        const replicas = (rs.spec as { replicas: number }).replicas;
        if (n > 5) return `${n} pods for ${rs.metadata.name}, at most 5 expected (replicas ${replicas}, up to 4)`;
      }
      return true;
    },
  },
});

const propertyTargets: Target[] = [
  { name: 'replicas:level-triggered', controllers: [levelTriggered], options: { objects: { kind: REPLICAS_KIND, name: 'web', spec: [{ replicas: 3 }, { replicas: 1 }, { replicas: 5 }], status: { replicas: 0 } } } },
  { name: 'prop:widget-status', controllers: [hotLoopCorrect], options: { objects: { kind: WIDGET, spec: [{ size: 2 }, { size: 3 }, { size: 1 }] } } },
  { name: 'prop:clamp-status', controllers: [clampStatusCorrect], options: { objects: { kind: WIDGET, spec: [{ size: 8 }, { size: 2 }] } } },
  { name: 'prop:split-owners', controllers: [splitA, splitB], options: { objects: { kind: WIDGET, spec: [{ size: 1 }, { size: 2 }] } } },
  { name: 'prop:polling', controllers: [pollingCorrect], options: { objects: { kind: WIDGET, spec: [{ size: 2 }, { size: 8 }] } } },
  { name: 'prop:pods', controllers: [podsCorrect], options: { objects: { kind: RS, name: 'web', spec: [{ replicas: 2 }, { replicas: 4 }, { replicas: 1 }] } }, properties: [podsInvariant] },
  { name: 'prop:dns', controllers: [dnsCorrect], options: { objects: { kind: DOMAIN, name: 'shop', spec: [{ host: 'shop.example.com' }, { host: 'www.shop.example.com' }] }, downstream: dnsDownstream } },
  {
    // a KEDA-like scaler writing its target's Scale (the scale subresource: getScale, a conditional updateScale)
    name: 'prop:queue-scaler',
    controllers: [queueScalerCorrect],
    options: {
      story: {
        objects: [queueTarget('web', 1), queue('web', 0), queueScaler('web', { perReplica: 5, minReplicas: 1, maxReplicas: 4 })],
        actions: [
          { at: 2_000, type: 'patch', kind: 'ConfigMap', key: 'default/web', patch: { data: { length: '12' } } },
          { at: 6_000, type: 'patch', kind: 'QueueScaler', key: 'default/web', patch: { spec: { maxReplicas: 2 } } },
          { at: 10_000, type: 'patch', kind: 'ConfigMap', key: 'default/web', patch: { data: { length: '0' } } },
        ],
        jitterMs: 1_000,
      },
    },
    properties: [convergence({ converged: queueScalerConverged })],
  },
  {
    name: 'prop:bucket',
    controllers: [bucketCorrect],
    // no finalizer by design (dns shows deletion done right): deleting a Bucket leaks its bucket
    options: { objects: { kind: BUCKET, spec: [{ region: 'eu' }, { region: 'us' }] }, downstream: storageDownstream, actions: ['reapply', 'update', 'patch'] },
    withoutFaults: { recreation: 'no finalizer: a deleted Bucket leaves its bucket behind' },
  },
];

const succeededTasks = (view: WorldView, batch: string) => view.list(TASK).filter((t) => t.metadata.labels['batch'] === batch && (t.status as TaskStatus).phase === 'Succeeded').length;

/** A fault target: its correct version (`controllers`), its buggy twin and the fault kinds that break it. */
export interface FaultTargetPair extends Target {
  buggy: readonly ControllerDefinition[];
  pairedFaults: readonly string[];
  /** Further sets of fault kinds to check the buggy twin with (bench/hunt-exhibits.ts). */
  alsoPaired?: readonly (readonly string[])[];
}

const faultTargetPairs: FaultTargetPair[] = [
  { name: 'fault:api-conflict', controllers: [widgetCorrect], buggy: [widgetBuggy], pairedFaults: ['api-conflict'], options: { objects: { kind: CONFLICT_WIDGET, name: 'w', spec: [{ size: 1 }, { size: 2 }] } } },
  {
    name: 'fault:coalescing',
    controllers: [batchCorrect], buggy: [batchBuggy], pairedFaults: ['coalescing'],
    options: {
      objects: [
        { kind: BATCH, name: 'nightly', spec: {} },
        { kind: TASK, name: 'task', spec: [{}, { retry: 1 }], labels: { batch: 'nightly-0' } },
      ],
      maxObjects: 4,
      environment: [{ actor: taskRunner, params: { runAfterMs: 300, finishAfterMs: 300 } }],
    },
    properties: [convergence({ converged: every(BATCH, (b, view) => (b.status as { succeeded?: number }).succeeded === succeededTasks(view, b.metadata.name) || `status.succeeded ${String((b.status as { succeeded?: number }).succeeded)} ≠ ${succeededTasks(view, b.metadata.name)} Succeeded tasks`) })],
  },
  {
    name: 'fault:duplication',
    controllers: [auditCorrect], buggy: [auditBuggy], pairedFaults: ['duplication'],
    // Its contract, one entry per generation, is edge-triggered by nature: a generation replaced
    // before the controller saw it (a lost, coalesced or late event) is never audited, and a
    // Config deleted before it was seen neither (no finalizer). The fixture is about duplicated
    // deliveries, so its workloads here create and re-apply, one generation per Config.
    options: { objects: { kind: CONFIG, name: 'app-config', spec: [{ data: 'v1' }, { data: 'v2' }] }, actions: ['reapply'] },
    withoutFaults: { recreation: 'no finalizer: a Config deleted before it was seen goes unaudited' },
    properties: [
      convergence({
        converged: every(CONFIG, (c, view) => view.list(AUDIT).some((a) => (a.spec as unknown as AuditSpec).configUid === c.metadata.uid && (a.spec as unknown as AuditSpec).generation === c.metadata.generation) || `generation ${c.metadata.generation} not audited`),
      }),
    ],
  },
  {
    name: 'fault:flaky-downstream',
    controllers: [shopCorrect], buggy: [shopBuggy], pairedFaults: ['flaky-downstream'],
    // no finalizer by design (the fixture is about retries): deleting an Order leaks its shop order
    options: { objects: { kind: ORDER, name: 'order', spec: [{ item: 'book' }, { item: 'lamp' }] }, downstream: shopDownstream, actions: ['reapply', 'update', 'patch'] },
    withoutFaults: { recreation: 'no finalizer: a deleted Order leaves its shop order behind' },
    properties: [convergence({ converged: every(ORDER, (o) => (o.status as { orderId?: string }).orderId !== undefined || 'no status.orderId') })],
  },
  {
    name: 'fault:list-order',
    controllers: [clusterCorrect], buggy: [clusterBuggy], pairedFaults: ['list-order'],
    options: { objects: { kind: CLUSTER, name: 'db', spec: [{ members: 3 }, { members: 1 }, { members: 2 }] } },
    properties: [
      convergence({
        converged: every(CLUSTER, (c, view) => {
          const want = Array.from({ length: (c.spec as { members: number }).members }, (_, i) => `${c.metadata.name}-${i}`).join();
          const have = view.list(MEMBER).filter((m) => m.metadata.ownerReferences.some((r) => r.uid === c.metadata.uid)).map((m) => m.metadata.name).sort().join();
          return have === want || `members [${have}], want [${want}]`;
        }),
      }),
    ],
  },
  { name: 'fault:recreation', controllers: [databaseCorrect], buggy: [databaseBuggy], pairedFaults: ['recreation'], options: { objects: { kind: DATABASE, name: 'orders', spec: [{ version: '15' }, { version: '16' }] } } },
  {
    name: 'fault:reordering',
    // the Site's lost update was caught by reordering one object's own events (no API server does
    // that); a cache that lags behind the user's change is the realistic history that shows it
    controllers: [siteCorrect], buggy: [siteBuggy], pairedFaults: ['reordering'], alsoPaired: [['stale-snapshot']],
    options: { objects: { kind: SITE, name: 'shop', spec: [{ replicas: 3 }, { replicas: 5 }] } },
    properties: [convergence({ converged: every(SITE, (s) => s.metadata.annotations[HASH] === specHash(s.spec as unknown as SiteSpec) || `annotation ${String(s.metadata.annotations[HASH])}`) })],
  },
  { name: 'fault:single-child', controllers: [singleChildCorrect], buggy: [singleChildBuggy], pairedFaults: ['stale-snapshot', 'crash-restart'], options: { objects: { kind: APP, name: 'web', spec: [{ image: 'nginx:1' }, { image: 'nginx:2' }] } } },
  // in-memory state (ctx.state): an expectations cache a crash may lose vs "I created it" kept only in memory
  { name: 'fault:in-memory-state', controllers: [singleChildExpectations], buggy: [singleChildMemoryBuggy], pairedFaults: ['crash-restart'], options: { objects: { kind: APP, name: 'web', spec: [{ image: 'nginx:1' }, { image: 'nginx:2' }] } } },
  // two active replicas (leaderElection: false) racing a read-modify-write claim: guarded by resourceVersion vs a merge patch
  {
    name: 'fault:reminder',
    controllers: [reminderCorrect], buggy: [reminderBuggy], pairedFaults: ['second-replica'],
    options: { objects: { kind: REMINDER, spec: [{ everyMs: 2000, times: 3, to: 'team@example.com' }, { everyMs: 3000, times: 2, to: 'ops@example.com' }] }, downstream: mailDownstream },
    // at most once by design: the slot is claimed before the mail is sent
    withoutFaults: { 'flaky-downstream': 'at most once: a failed send is not retried', 'crash-restart': 'at most once: a crash between the claim and the send loses that mail', 'api-error': 'at most once: a claim applied but answered with an error (reset, 504) is not sent' },
  },
];

/** The false-positive corpus (examples/false-positives/): correct controllers of shapes the zoo does not have. */
export const corpusTargets: readonly Target[] = falsePositiveCorpus.map((c) => ({ name: `corpus:${c.name}`, controllers: c.controllers, options: c.options, ...(c.properties ? { properties: c.properties } : {}), ...(c.withoutProperties ? { withoutProperties: c.withoutProperties } : {}) }));

/** Controllers of the corpus checked through a story (exact objects, timed actions; issue 13): `--only story:`. */
export const storyTargets: readonly Target[] = falsePositiveStories.map((c) => ({ name: `story:${c.case.name}`, controllers: c.case.controllers, options: storyOptions(c), ...(c.case.properties ? { properties: c.case.properties } : {}), ...(c.case.withoutProperties ? { withoutProperties: c.case.withoutProperties } : {}) }));

const deployment = (image: string, replicas: number) => ({ replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } });

/**
 * The correct operator programs run unchanged (examples/operators/, the client-node WebApp
 * controller): `--only host:`. A run costs several times an in-process one (HTTP, a module per
 * incarnation), so they are hunted with fewer runs.
 */
export const hostedTargets: readonly Target[] = [
  { name: 'host:template-hash', controllers: [defineProgram({ entry: 'examples/operators/template-hash/correct.ts', for: 'Deployment', name: 'template-hash', sample: [deployment('nginx:1.27', 1), deployment('nginx:1.28', 2)] })], options: {} },
  { name: 'host:hash-applier', controllers: [defineProgram({ entry: 'examples/operators/hash-applier/correct.ts', for: 'Deployment', name: 'hash-applier', sample: [deployment('nginx:1.27', 1), deployment('nginx:1.28', 2)] })], options: {} },
  {
    name: 'host:website-operator',
    controllers: [defineProgram({ entry: 'examples/operators/website-operator/correct.ts', for: 'Website', name: 'website', resources: [{ kind: 'Website', plural: 'websites', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ title: 'home', replicas: 1 }, { title: 'blog', replicas: 2 }] })],
    options: {},
  },
  {
    // a KEDA-like poller scaling a Deployment through deployments/scale with client-node's AppsV1Api
    name: 'host:queue-scaler',
    controllers: [defineProgram({ entry: 'examples/operators/queue-scaler/correct.ts', for: 'ConfigMap', name: 'queue-scaler' })],
    options: {
      story: {
        objects: [{ ...queueTarget('web', 1) }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-queue', namespace: 'default', labels: { [QUEUE_LABEL]: 'web' } }, data: { length: '0', perReplica: '5', minReplicas: '1', maxReplicas: '4' } } as NewObject],
        actions: [
          { at: 2_000, type: 'patch', kind: 'ConfigMap', key: 'default/web-queue', patch: { data: { length: '12' } } },
          { at: 8_000, type: 'patch', kind: 'ConfigMap', key: 'default/web-queue', patch: { data: { length: '0' } } },
        ],
        jitterMs: 1_000,
      },
    },
    properties: [convergence({ converged: queuesServed })],
  },
  {
    // first come, first served over a pool ConfigMap, a JSON patch test op its only guard (red team round 10 F-1)
    name: 'host:slot-claimer',
    controllers: [defineProgram({ entry: 'examples/operators/slot-claimer/correct.ts', for: 'Claim', name: 'slot-claimer', resources: [{ kind: 'Claim', plural: 'claims', group: 'example.com', version: 'v1', namespaced: true }], sample: [{}] })],
    options: { story: loadStory('examples/operators/slot-claimer/story.yaml'), objects: { kind: 'Claim', spec: [{}] } },
    // which slot is the path's business, a leaked one is not (the buggy twin's leak fails it, not only same-end-state);
    // the claimer gives each Claim the lowest free slot in one sync over all Claims, so which slot a Claim ends with
    // depends on timing by design: declared, as a user of such an allocator would (F-1b, stop 52)
    properties: [convergence({ converged: slotsHeld }), sameEndState({ timingDependent: ['Claim'] })],
  },
  { name: 'host:secret-copier', controllers: [defineProgram({ entry: 'examples/operators/secret-copier/correct.ts', for: 'Secret', name: 'secret-copier' })], options: { story: loadStory('examples/operators/secret-copier/story.yaml') } },
  {
    // @dot-i/k8s-operator from npm, unchanged: it throws on a watch ERROR event and exits when a watch request fails
    name: 'host:k8s-operator-greeter',
    controllers: [defineProgram({ entry: 'examples/operators/k8s-operator-greeter/careful.ts', for: 'Greeting', name: 'greeter', resources: [{ kind: 'Greeting', plural: 'greetings', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ message: 'hello' }, { message: 'hi' }] })],
    options: {},
    withoutFaults: {
      'watch-disconnect': "the framework's defect: it throws on a watch ERROR event and exits on a failed watch",
      'watch-event-loss': "the framework's defect: the catch-up ends its watch with a 410 ERROR event, on which it throws",
      coalescing: "the framework's defect: the catch-up ends its watch with a 410 ERROR event, on which it throws",
      'api-error': "the framework's defect: it calls process.exit(1) when a watch request fails",
    },
  },
  { name: 'host:webapp', controllers: [webAppController], options: {} },
  { name: 'host:cron-runner', controllers: [cronRunnerController], options: {}, properties: [sameEndState({ history: cronRunHistory }), recovery({ history: cronRunHistory })] },
  {
    name: 'host:ttl-expirer',
    controllers: [defineProgram({ entry: 'examples/operators/ttl-expirer/correct.ts', for: 'Sandbox', name: 'ttl-expirer', resources: [{ kind: 'Sandbox', plural: 'sandboxes', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ ttlSeconds: 3 }, { ttlSeconds: 20 }] })],
    options: {},
  },
];

/** Every correct controller the project has. */
export const huntTargets: readonly Target[] = [...zoo, ...propertyTargets, ...faultTargetPairs, ...corpusTargets, ...storyTargets, ...hostedTargets];

/** The fault targets' buggy twins, checked like their correct versions (bench/hunt-exhibits.ts). */
export const buggyFaultTargets: readonly FaultTargetPair[] = faultTargetPairs.map((p) => ({ ...p, name: `${p.name}:buggy`, controllers: p.buggy }));

/** Every built-in property, with the target's configured ones in place of those of the same name, minus `skip` and those the target's design does not promise. */
export function propertiesFor(t: Target, skip: readonly string[]): Property[] {
  const own = new Map((t.properties ?? []).map((p) => [p.name, p]));
  const all = defaultProperties().map((p) => own.get(p.name) ?? p);
  // configured properties with no built-in of their name (opt-in ones: meter-sync's honours-retry-after) still run
  for (const p of t.properties ?? []) if (!all.some((x) => x.name === p.name)) all.push(p);
  return all.filter((p) => !skip.includes(p.name) && t.withoutProperties?.[p.name] === undefined);
}

/** Every built-in fault kind (the target's own first) but those the target leaves out and `also`. */
export function faultsFor(t: Target, also: readonly string[]): FaultModule[] {
  const without = new Set([...Object.keys(t.withoutFaults ?? {}), ...also]);
  return [...(t.extraFaults ?? []), ...allFaults].filter((f) => !without.has(f.kind));
}
