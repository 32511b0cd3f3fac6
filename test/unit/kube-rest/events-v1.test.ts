import { ApisApi, CoreV1Api, EventsApi, EventsV1Api, KubeConfig, PatchStrategy, setHeaderOptions, V1MicroTime, Watch, type EventsV1Event } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { kubeController, simulate, type Scenario } from '../../../src/index.js';

/**
 * `events.k8s.io/v1` Events, driven through client-node's `EventsV1Api` (what client-go's event
 * broadcaster prefers) inside a simulation: served, listed in discovery, and the same stored
 * kind as core/v1 Events (without kube-apiserver's field conversion, see builtin-resources.ts).
 */
const scenario: Scenario = {
  seed: 1,
  controllers: [{ name: 'recorder' }],
  initialObjects: [],
  workload: [],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 1_000, settleMs: 1_000 },
};

// a fixed MicroTime (client-node's V1MicroTime writes six fractional digits, as the API requires)
const AT = new V1MicroTime('2026-01-01T00:00:01Z');

function event(name: string, note: string): EventsV1Event {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    eventTime: AT,
    reportingController: 'example.com/recorder',
    reportingInstance: 'recorder-0',
    action: 'Reconcile',
    reason: 'Synced',
    type: 'Normal',
    note,
    regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', namespace: 'default' },
  };
}

/** What the program saw, for the assertions after the run. */
interface Seen {
  groups: string[];
  group: { name: string; preferred: string | undefined };
  resources: { name: string; kind: string; namespaced: boolean }[];
  created: EventsV1Event;
  got: EventsV1Event;
  listed: string[];
  jsonPatched: EventsV1Event;
  mergePatched: EventsV1Event;
  watched: string[];
  core: { created: string; listed: string[]; message: string | undefined; v1Listed: string[]; v1Note: string | undefined; coreMessageOfFirst: string | undefined };
  errors: string[];
}

async function record(kubeconfig: string): Promise<Seen> {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  const events = kc.makeApiClient(EventsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const errors: string[] = [];
  const groups = (await kc.makeApiClient(ApisApi).getAPIVersions()).groups.map((g) => g.name);
  const g = await kc.makeApiClient(EventsApi).getAPIGroup();
  const resources = (await events.getAPIResources()).resources.map((r) => ({ name: r.name, kind: r.kind, namespaced: r.namespaced }));

  // a watch opened before the writes sees them
  const watched: string[] = [];
  let sawSecond: () => void = () => undefined;
  const second = new Promise<void>((resolve) => (sawSecond = resolve));
  const ac = await new Watch(kc).watch(
    '/apis/events.k8s.io/v1/namespaces/default/events',
    {},
    (type: string, obj: EventsV1Event) => {
      watched.push(`${type} ${obj.metadata?.name} ${obj.note}`);
      if (obj.metadata?.name === 'second') sawSecond();
    },
    (err: unknown) => {
      // our own abort below ends it with an AbortError
      if (err && (err as { name?: string }).name !== 'AbortError') errors.push(String(err));
    },
  );

  const created = await events.createNamespacedEvent({ namespace: 'default', body: event('first', 'synced cm') });
  const got = await events.readNamespacedEvent({ name: 'first', namespace: 'default' });
  // client-node 1.4 sends a patch as a JSON patch unless told otherwise
  const jsonPatched = await events.patchNamespacedEvent({ name: 'first', namespace: 'default', body: [{ op: 'replace', path: '/note', value: 'synced cm again' }] });
  const mergePatched = await events.patchNamespacedEvent(
    { name: 'first', namespace: 'default', body: { series: { count: 2, lastObservedTime: AT } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await events.createNamespacedEvent({ namespace: 'default', body: event('second', 'deleted cm') });
  await second;
  ac.abort();
  const listed = (await events.listNamespacedEvent({ namespace: 'default' })).items.map((e) => `${e.metadata?.name} ${e.note}`);

  // core/v1 Events as before; the two groups share one stored kind
  const coreCreated = await core.createNamespacedEvent({
    namespace: 'default',
    body: { metadata: { name: 'core-one', namespace: 'default' }, involvedObject: { kind: 'ConfigMap', name: 'cm', namespace: 'default' }, reason: 'Synced', message: 'from core', type: 'Normal', count: 1 },
  });
  const coreListed = (await core.listNamespacedEvent({ namespace: 'default' })).items;
  const v1Listed = (await events.listNamespacedEvent({ namespace: 'default' })).items;
  return {
    groups,
    group: { name: g.name, preferred: g.preferredVersion?.groupVersion },
    resources,
    created,
    got,
    listed,
    jsonPatched,
    mergePatched,
    watched,
    core: { created: coreCreated.message ?? '', listed: coreListed.map((e) => e.metadata.name!), message: coreListed.find((e) => e.metadata.name === 'core-one')?.message,
      v1Listed: v1Listed.map((e) => e.metadata!.name!),
      v1Note: v1Listed.find((e) => e.metadata?.name === 'core-one')?.note,
      coreMessageOfFirst: coreListed.find((e) => e.metadata.name === 'first')?.message,
    },
    errors,
  };
}

describe('events.k8s.io/v1 Events through client-node', () => {
  it('are discovered, created, read, listed, patched and watched; core/v1 Events still work', async () => {
    let seen: Seen | undefined;
    let failure: unknown;
    const recorder = kubeController({
      name: 'recorder',
      for: 'ConfigMap',
      start: async (ctx) => {
        try {
          seen = await record(ctx.kubeconfig);
        } catch (e) {
          failure = e;
        }
      },
    });
    const { run } = await simulate(scenario, { controllers: [recorder], tailMs: 0 });
    expect(failure).toBeUndefined();
    const s = seen!;

    // discovery: /apis, /apis/events.k8s.io, /apis/events.k8s.io/v1
    expect(s.groups).toContain('events.k8s.io');
    expect(s.group).toEqual({ name: 'events.k8s.io', preferred: 'events.k8s.io/v1' });
    expect(s.resources).toEqual([{ name: 'events', kind: 'Event', namespaced: true }]);

    expect(s.created).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'first', namespace: 'default' }, note: 'synced cm', reason: 'Synced', action: 'Reconcile', reportingController: 'example.com/recorder' });
    expect(s.created.regarding).toMatchObject({ kind: 'ConfigMap', name: 'cm' });
    expect(s.got.metadata?.uid).toBe(s.created.metadata?.uid);
    expect(s.jsonPatched.note).toBe('synced cm again');
    expect(s.mergePatched).toMatchObject({ note: 'synced cm again', series: { count: 2 } });
    expect(s.listed).toEqual(['first synced cm again', 'second deleted cm']);
    expect(s.watched).toEqual(['ADDED first synced cm', 'MODIFIED first synced cm again', 'MODIFIED first synced cm again', 'ADDED second deleted cm']);
    expect(s.errors).toEqual([]);

    // core/v1 Events are served as before, and list the events.k8s.io ones too (one stored kind)
    expect(s.core.created).toBe('from core');
    expect(s.core.message).toBe('from core');
    expect(s.core.listed).toEqual(['core-one', 'first', 'second']);
    expect(s.core.v1Listed).toEqual(['core-one', 'first', 'second']);
    // one stored object, each group's spelling (core `message` is events.k8s.io `note`)
    expect(s.core.v1Note).toBe('from core');
    expect(s.core.coreMessageOfFirst).toBe('synced cm again');

    const wire = run.trace.filter((e) => e.type === 'http:request').map((e) => `${String(e['method'])} ${String(e['path']).split('?')[0]} ${String(e['status'])}`);
    expect(wire).toContain('POST /apis/events.k8s.io/v1/namespaces/default/events 201');
    expect(wire).toContain('PATCH /apis/events.k8s.io/v1/namespaces/default/events/first 200');
    expect(run.finalObjects.filter((o) => o.kind === 'Event').map((o) => `${String(o.apiVersion)} ${o.metadata.name}`)).toEqual(['v1 core-one', 'events.k8s.io/v1 first', 'events.k8s.io/v1 second']); // in key order
  });
});
