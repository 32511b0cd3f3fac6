import { judgeScenario } from '../test/helpers/property-laws.js';
import { convergence } from '../properties/convergence.js';
import { deletionCompletes } from '../properties/deletion-completes.js';
import { noExtraDestructiveActions } from '../properties/no-extra-destructive-actions.js';
import { edgeTriggered } from '../examples/replicas/edge-triggered.js';
import { DOMAIN, dnsDownstream, dnsStuckBuggy, domain } from '../examples/property-targets/dns.js';
import { podsGeneratedNamesBuggy, replicaSet } from '../examples/property-targets/pods.js';
import { widgetScenario } from '../examples/property-targets/widget.js';
const s = { seed: 3, controllers: [{ name: 'edge-triggered' }], initialObjects: [], workload: [{ at: 0, type: 'create' as const, object: { kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 0 } } }], faults: { events: [{ kind: 'event-loss', nth: 1 }], background: [] }, options: { faultWindowMs: 10_000, settleMs: 10_000 } };
for (const [p, sc, side] of [[convergence(), s, { controllers: [edgeTriggered] }], [deletionCompletes(), widgetScenario(['dns'], [{ at: 0, type: 'create', object: domain('shop') }, { at: 2000, type: 'delete', kind: DOMAIN, key: 'default/shop' }]), { controllers: [dnsStuckBuggy], options: { downstream: dnsDownstream } }], [noExtraDestructiveActions(), widgetScenario(['replicaset'], [{ at: 0, type: 'create', object: replicaSet('web', 1) }], { faults: { events: [{ kind: 'watch-event-loss', nth: 1 }], background: [] } }), { controllers: [podsGeneratedNamesBuggy] }]] as const) {
  const { verdict } = await judgeScenario(p, sc as never, side as never);
  console.log(p.name, verdict.ok ? JSON.stringify(verdict) : `${verdict.summary}\n${verdict.explanation}\n`);
}
