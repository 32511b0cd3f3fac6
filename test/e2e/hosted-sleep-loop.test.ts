import { CustomObjectsApi, KubeConfig, Watch, type KubernetesObject } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { convergence, idempotence, noHotLoop, type Scenario } from '../../src/index.js';
import { kubeController } from '../../src/kube-rest/kube-controller.js';
import { CRON_GROUP, CRON_KIND, CRON_PLURAL, CRON_VERSION, cronTick } from '../../examples/client-node/cron-runner.js';
import { expectFailure, expectQuiet, judgeAll, judgeScenario } from '../helpers/property-laws.js';

const resources = [{ group: CRON_GROUP, version: CRON_VERSION, kind: CRON_KIND, plural: CRON_PLURAL, singular: 'cronschedule' }];

function schedule(everySeconds: number): Scenario {
  return {
    seed: 1,
    controllers: [{ name: 'cron-runner' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: CRON_KIND, metadata: { name: 'nightly', namespace: 'default' }, spec: { everySeconds, deadlineSeconds: 2 } } }],
    faults: { events: [], background: [] },
  };
}

/** The cron-runner's tick in a loop that awaits a second-long sleep (`timers/promises`, or a promise around `setTimeout`) instead of a `setInterval`. */
const sleeper = (how: 'timers-promises' | 'promise-timeout') =>
  kubeController({
    name: 'cron-runner',
    for: CRON_KIND,
    resources,
    requestLatencyMs: 10,
    start(ctx) {
      const kc = new KubeConfig();
      kc.loadFromString(ctx.kubeconfig);
      const tick = cronTick(kc);
      let stopped = false;
      void (async () => {
        while (!stopped) {
          await tick();
          if (how === 'timers-promises') await sleep(1000);
          else await new Promise((r) => setTimeout(r, 1000));
        }
      })();
      return () => {
        stopped = true;
      };
    },
  });

/**
 * A loop that sleeps first, started before a watch whose handler answers every event of one
 * schedule 600 ms later by counting it in the other's status (each count is the other's next
 * event: a rally writing each object every 1.2 s, which the poll rule's 1 s does not see).
 * The watch is opened in the same turn as the first sleep, after it, so it must not inherit the
 * sleep's wake-up: its events are news from the world, not the sleep's continuation.
 */
const sleepFirstThenPingPong = kubeController({
  name: 'cron-runner',
  for: CRON_KIND,
  resources,
  requestLatencyMs: 10,
  start(ctx) {
    const kc = new KubeConfig();
    kc.loadFromString(ctx.kubeconfig);
    const custom = kc.makeApiClient(CustomObjectsApi);
    let stopped = false;
    void (async () => {
      while (!stopped) await sleep(5000);
    })();
    let request: { abort(): void } | undefined;
    void new Watch(kc)
      .watch(
        `/apis/${CRON_GROUP}/${CRON_VERSION}/${CRON_PLURAL}`,
        {},
        (_type, obj: KubernetesObject & { status?: { count?: number } }) => {
          const other = obj.metadata!.name === 'ping' ? 'pong' : 'ping';
          // one rally: pong's creation starts nothing
          if (obj.status?.count === undefined && other === 'ping') return;
          setTimeout(() => {
            void custom
              .patchNamespacedCustomObjectStatus({ group: CRON_GROUP, version: CRON_VERSION, namespace: obj.metadata!.namespace!, plural: CRON_PLURAL, name: other, body: [{ op: 'add', path: '/status', value: { count: (obj.status?.count ?? 0) + 1 } }] })
              .catch(() => {});
          }, 600);
        },
        () => {},
      )
      .then((r) => (request = r));
    return () => {
      stopped = true;
      request?.abort();
    };
  },
});

describe('scheduled work of hosted programs: sleep loops', () => {
  it('a watch opened in the turn of a first sleep is not the sleep\'s continuation: its handlers\' ping-pong stays a hot loop', async () => {
    const pair: Scenario = {
      ...schedule(1000),
      workload: ['ping', 'pong'].map((name) => ({ at: 0, type: 'create' as const, object: { kind: CRON_KIND, metadata: { name, namespace: 'default' }, spec: { everySeconds: 1000 } } })),
    };
    const v = expectFailure((await judgeScenario(noHotLoop(), pair, { controllers: [sleepFirstThenPingPong] })).verdict);
    expect(v.summary).toMatch(/^hot loop: .* to CronSchedule default\/p[io]ng \(status\.count/);
  });

  for (const how of ['timers-promises', 'promise-timeout'] as const) {
    it(`a scheduler looping on an awaited second-long sleep (${how}) starting a run per slot in the tail passes no-hot-loop, idempotence and convergence`, async () => {
      const s = schedule(4);
      const { verdict, run } = await judgeScenario(noHotLoop(), s, { controllers: [sleeper(how)] });
      const tailRuns = run.writes.filter((w) => w.t >= run.timing.tailStart && w.kind === 'ConfigMap' && w.verb === 'create' && !w.error);
      expect(tailRuns.length).toBeGreaterThanOrEqual(1);
      expectQuiet(verdict);
      expect(await judgeAll([idempotence(), convergence()], s, { controllers: [sleeper(how)] })).toEqual([]);
    });
  }
});
