import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/index.js';
import { acceptedPacedFields, learnPacedFields, pacedObjects, PACED_FIELDS } from '../../properties/_internals/paced-fields.js';
import { compareStates } from '../../properties/_internals/normalize.js';
import type { State } from '../../properties/_internals/masks.js';

/**
 * same-end-state's field-by-field acceptance of objects a timing-dependent kind's controller walks
 * without owning them (corpus node-upgrade: a plan deleted mid-walk leaves its Nodes where the
 * walk had got).
 */
describe('paced fields: objects a timing-dependent controller walks without owning them', () => {
  const node = (name: string, fields: { version: string; target?: string; unschedulable?: boolean; cordonedBy?: string }) => ({
    kind: 'Node',
    metadata: { name, uid: `uid-${name}`, annotations: { ...(fields.target ? { target: fields.target } : {}), ...(fields.cordonedBy ? { 'cordoned-by': fields.cordonedBy } : {}) } },
    spec: fields.unschedulable === undefined ? {} : { unschedulable: fields.unschedulable },
    status: { version: fields.version },
  });
  type Node = ReturnType<typeof node>;
  const record = (nodes: Node[], writer: string, primaryKinds = ['UpgradePlan', 'Widget']): RunRecord =>
    ({
      controllers: ['node-upgrade', 'widgets'],
      primaryKinds,
      writes: nodes.map((n, i) => ({ t: 1000 + i, actor: writer, verb: 'patch', kind: 'Node', key: n.metadata.name, changed: ['spec.unschedulable'], noop: false })),
      settledObjects: nodes,
    }) as unknown as RunRecord;
  const state = (nodes: Node[]): State => new Map(nodes.map((n) => [`Node ${n.metadata.name}`, { metadata: { annotations: n.metadata.annotations }, spec: n.spec, status: n.status }]));
  const plan = new Set(['UpgradePlan']);
  // fault-free: node-a upgraded (cordoned and uncordoned on the way); a later controller never came to it
  const upgraded = [node('node-a', { version: 'v2', target: 'v2', unschedulable: false })];
  const untouched = [node('node-a', { version: 'v1' })];
  const twin = { record: record(upgraded, 'controller:node-upgrade/0'), state: state(upgraded) };
  const late = [{ record: record(untouched, 'controller:node-upgrade/0'), state: state(untouched) }];
  const learned = { [PACED_FIELDS]: learnPacedFields(twin, late, plan) };
  const judged = (nodes: Node[]) => compareStates(twin.state, state(nodes)).map((d) => acceptedPacedFields(d, learned));

  it('a node cordoned, then uncordoned un-upgraded when the plan went: each field as in one fault-free run or the other', () => {
    expect(judged([node('node-a', { version: 'v1', unschedulable: false })])).toEqual([true]);
    expect(judged(untouched)).toEqual([true]);
  });

  it('a value no fault-free run ends with is still reported: a node left cordoned, a version nobody asked for', () => {
    expect(judged([node('node-a', { version: 'v1', unschedulable: true, cordonedBy: 'cluster' })])).toEqual([false]);
    expect(judged([node('node-a', { version: 'v1', unschedulable: true })])).toEqual([false]);
    expect(judged([node('node-a', { version: 'v3', target: 'v2', unschedulable: false })])).toEqual([false]);
  });

  it('only for a declared kind\'s controller, and never for objects a controller reconciles or a declared kind owns', () => {
    expect(learnPacedFields(twin, late, new Set(['Widget2']))).toEqual([]);
    // written by another kind's controller
    expect(pacedObjects(record(upgraded, 'controller:widgets/0'), plan)).toEqual(new Set());
    // a Node that is some controller's primary kind
    expect(pacedObjects(record(upgraded, 'controller:node-upgrade/0', ['UpgradePlan', 'Node']), plan)).toEqual(new Set());
    // owned by the plan: the whole-object alternatives judge it
    const owned = { ...upgraded[0]!, metadata: { ...upgraded[0]!.metadata, ownerReferences: [{ kind: 'UpgradePlan', name: 'cluster', uid: 'p', apiVersion: 'v1' }] } };
    expect(pacedObjects(record([owned], 'controller:node-upgrade/0'), plan)).toEqual(new Set());
    expect(pacedObjects(record(upgraded, 'controller:node-upgrade/0'), plan)).toEqual(new Set(['Node node-a']));
  });
});
