import { bucket, bucketCorrect, storageDownstream } from '../../examples/property-targets/bucket.js';
import { dnsCorrect, dnsDownstream, DOMAIN, domain } from '../../examples/property-targets/dns.js';
import { hotLoopCorrect } from '../../examples/property-targets/hot-loop.js';
import { podsCorrect, replicaSet } from '../../examples/property-targets/pods.js';
import { clampStatusCorrect, pollingCorrect, splitA, splitB } from '../../examples/property-targets/widget-controllers.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import type { Property } from '../../src/harness/property.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import type { Side } from '../helpers/property-laws.js';

/** Every correct property target with a representative scenario, for the "quiet under every fault" matrix. */
export interface CorrectTarget {
  name: string;
  side: Side;
  scenario: Scenario;
  kinds: string[];
  keys: string[];
  extraProperties: Property[];
  /** Fault kinds this target does not claim to survive, with the reason. */
  skipFaults?: Record<string, string>;
}

const podsInvariant = safetyInvariants({
  invariants: {
    'at most replicas+1 pods': (view) => {
      for (const rs of view.list('ReplicaSet')) {
        const n = view.list('Pod').filter((p) => p.metadata.ownerReferences.some((r) => r.uid === rs.metadata.uid)).length;
        if (n > 5) return `${n} pods for ${rs.metadata.name}, at most 5 expected (replicas goes up to 4)`;
      }
      return true;
    },
  },
});

export const correctTargets: CorrectTarget[] = [
  {
    name: 'level-triggered replicas',
    side: { controllers: [levelTriggered] },
    scenario: { seed: 3, controllers: [{ name: 'level-triggered' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 0 } } }], faults: { events: [], background: [] }, options: { faultWindowMs: 10_000, settleMs: 10_000 } },
    kinds: ['ReplicaSet'],
    keys: ['default/web'],
    extraProperties: [],
  },
  {
    name: 'widget status writer',
    side: { controllers: [hotLoopCorrect] },
    scenario: widgetScenario(['widget'], [...createAll([widget('a', 2), widget('b', 1)]), { at: 2000, type: 'update', kind: 'Widget', key: 'default/a', spec: { size: 3 } }]),
    kinds: ['Widget'],
    keys: ['default/a', 'default/b'],
    extraProperties: [],
  },
  {
    name: 'clamp in status',
    side: { controllers: [clampStatusCorrect] },
    scenario: widgetScenario(['widget'], createAll([widget('big', 8), widget('small', 2)])),
    kinds: ['Widget'],
    keys: ['default/big', 'default/small'],
    extraProperties: [],
  },
  {
    name: 'split field owners',
    side: { controllers: [splitA, splitB] },
    scenario: widgetScenario(['fighter-a', 'fighter-b'], createAll([widget('shared', 1)]), { options: { faultWindowMs: 5_000, settleMs: 10_000, watchLatencyMs: 100 } }),
    kinds: ['Widget'],
    keys: ['default/shared'],
    extraProperties: [],
  },
  {
    name: 'polling instead of sleeping',
    side: { controllers: [pollingCorrect] },
    scenario: widgetScenario(['widget'], [{ at: 0, type: 'create', object: widget('big', 8) }, { at: 1000, type: 'create', object: widget('small', 2) }], { options: { faultWindowMs: 5_000, settleMs: 30_000 } }),
    kinds: ['Widget'],
    keys: ['default/big', 'default/small'],
    extraProperties: [],
  },
  {
    name: 'pods with deterministic names',
    side: { controllers: [podsCorrect] },
    scenario: widgetScenario(['replicaset'], [
      { at: 0, type: 'create', object: replicaSet('web', 2) },
      { at: 1000, type: 'update', kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 4 } },
      { at: 3000, type: 'update', kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 2 } },
    ]),
    kinds: ['ReplicaSet'],
    keys: ['default/web'],
    extraProperties: [podsInvariant],
  },
  {
    name: 'dns records with a finalizer',
    side: { controllers: [dnsCorrect], options: { downstream: dnsDownstream } },
    scenario: widgetScenario(['dns'], [
      { at: 0, type: 'create', object: domain('shop') },
      { at: 0, type: 'create', object: domain('blog') },
      { at: 2000, type: 'delete', kind: DOMAIN, key: 'default/shop' },
    ]),
    kinds: [DOMAIN],
    keys: ['default/shop', 'default/blog'],
    extraProperties: [],
  },
  {
    name: 'buckets with backoff',
    side: { controllers: [bucketCorrect], options: { downstream: storageDownstream } },
    scenario: widgetScenario(['bucket'], createAll([bucket('logs'), bucket('media')])),
    kinds: ['Bucket'],
    keys: ['default/logs', 'default/media'],
    extraProperties: [],
    skipFaults: { recreation: 'it has no finalizer: a deleted Bucket leaves its bucket behind (dns covers deletion)' },
  },
];
