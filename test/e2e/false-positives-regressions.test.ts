import { describe, expect, it } from 'vitest';
import { check, type ControllerDefinition, type Scenario, type WorkloadAction } from '../../src/index.js';
import { propertiesOf } from '../helpers/false-positives.js';
import { falsePositiveCorpus } from '../../examples/false-positives/index.js';
import { cascadePoolController, machinePoolController } from '../../examples/false-positives/machine-pool.js';
import { nodeDrainerController } from '../../examples/false-positives/node-drainer.js';
import { dnsSyncController } from '../../examples/false-positives/dns-sync.js';
import { batchFanoutController } from '../../examples/false-positives/batch-fanout.js';

/**
 * Shrunk scenarios the hunts found on correct corpus controllers, replayed with every default
 * property: each failed before the fix its entry names (in the controller, with the mechanism in
 * its file's comment), so a regression of either shows here, not only in a hunt.
 */
const REGRESSIONS: { name: string; found: string; scenario: Scenario }[] = [
  {
    name: 'worker-pool',
    found: 'npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 30-31 --only corpus:worker-pool: seed 31 run 60, no-extra-destructive-actions (Pods made for a pool whose DELETED event was lost, and a real Pod deleted for one whose DELETED event was lost)',
    scenario: {
      seed: 9,
      controllers: [{ name: 'worker-pool' }],
      environment: [{ name: 'pod-lifecycle' }],
      initialObjects: [],
      workload: [
        { at: 4500, type: 'create', object: { kind: 'WorkerPool', metadata: { name: 'workers-1', namespace: 'default' }, spec: { replicas: 4, image: 'worker:2' } } },
        { at: 15900, kind: 'WorkerPool', key: 'default/workers-1', type: 'delete' },
      ],
      faults: {
        events: [
          { kind: 'watch-disconnect', nth: 0, params: { how: 'close' } },
          { kind: 'watch-disconnect', nth: 5, params: { how: 'close' } },
          { kind: 'watch-event-loss', nth: 29 },
          { kind: 'watch-event-loss', nth: 30 },
          { kind: 'watch-event-loss', nth: 34 },
        ],
        background: [],
      },
    },
  },
  {
    name: "cached-site",
    found: "npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 74 --only corpus:cached-site: run 1, no-extra-destructive-actions (a foreground deletion of the StaticSite, its events delayed: the controller made its ConfigMap again for the terminating owner, and the garbage collector deleted it again; creates the collector undid for an owner already marked destroy nothing)",
    scenario: {"seed":757946095,"controllers":[{"name":"cached-site"}],"environment":[{"name":"deployment"},{"name":"pod-lifecycle"}],"initialObjects":[],"workload":[{"at":1200,"type":"create","object":{"kind":"StaticSite","metadata":{"name":"docs-0","namespace":"default"},"spec":{"replicas":2,"pages":{"index.html":"<h1>v1</h1>"}}}},{"at":16500,"kind":"StaticSite","key":"default/docs-0","type":"delete","propagationPolicy":"Foreground"},{"at":18600,"kind":"StaticSite","key":"default/docs-0","type":"delete"},{"at":24900,"kind":"StaticSite","key":"default/docs-0","type":"update","spec":{"replicas":2,"pages":{"index.html":"<h1>v1</h1>"}}}],"faults":{"events":[{"kind":"watch-event-loss","nth":1},{"kind":"watch-disconnect","nth":16,"params":{"how":"gone"}},{"kind":"stale-snapshot","nth":14,"params":{"list":true,"versionsBack":3,"catchUpMs":1319}},{"kind":"api-conflict","nth":15}],"background":[{"kind":"event-loss","rate":0.45},{"kind":"watch-event-loss","rate":0.24},{"kind":"reordering","rate":0.04,"params":{"holdMs":2588}},{"kind":"watch-disconnect","rate":0.26,"params":{"how":"gone"}},{"kind":"api-conflict","rate":0.41}]}},
  },
  {
    name: "schema-migrations",
    found: "npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 74 --only corpus:schema-migrations: run 145, no-duplicate-side-effects (a lock row whose release failed, beside the next version's lock: lock rows taken and released within one reconcile fault-free are not copies of anything)",
    scenario: {"seed":503581528,"controllers":[{"name":"schema-migrations"}],"initialObjects":[],"workload":[{"at":19200,"type":"create","object":{"kind":"Schema","metadata":{"name":"orders-0","namespace":"default"},"spec":{"versions":["001","002","003"]}}}],"faults":{"events":[{"kind":"flaky-downstream","nth":0,"params":{"fail":"reset"}},{"kind":"crash-restart","nth":6,"params":{"point":"after-write"}}],"background":[{"kind":"watch-disconnect","rate":0.1,"params":{"how":"gone"}},{"kind":"api-error","rate":0.1,"params":{"status":500}},{"kind":"flaky-downstream","rate":0.22,"params":{"fail":"status","status":500}}]}},
  },
  {
    name: "meter-sync",
    found: "npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 75 --only corpus:meter-sync: run 71, bounded-downstream-qps (the metering API answered 429 with Retry-After: 1 again and again; the controller waited exactly as asked, or what was left of it after an event, and the 843 ms left looked like a short fixed requeue: a retry when the server said is its pacing, not counted)",
    scenario: {"seed":10,"controllers":[{"name":"meter-sync"}],"initialObjects":[],"workload":[{"at":1200,"kind":"Meter","key":"default/meter-1","type":"update","spec":{"customer":"acme","units":250}},{"at":7500,"type":"create","object":{"kind":"Meter","metadata":{"name":"meter-0","namespace":"default"},"spec":{"customer":"acme","units":250}}},{"at":24900,"type":"create","object":{"kind":"Meter","metadata":{"name":"meter-1","namespace":"default"},"spec":{"customer":"acme","units":100}}}],"faults":{"events":[{"kind":"watch-event-loss","nth":5},{"kind":"reordering","nth":17,"params":{"holdMs":2848}}],"background":[{"kind":"event-loss","rate":0.05},{"kind":"reordering","rate":0.2,"params":{"holdMs":662}},{"kind":"flaky-downstream","rate":0.44,"params":{"fail":"status","status":503}},{"kind":"crash-restart","rate":0.002}]}},
  },
  {
    name: "paused-wave",
    found: "npx tsx bench/hunt-fp-rate.ts --search guided --runs 150 --seeds 77 --only corpus:paused-wave: run 143, same-end-state (a crash right after a shard moved, before the step was recorded: the restarted controller moved the next shard at once, and the pause froze the wave two shards along where a run at its pace had moved one; the step is now recorded before the shard moves)",
    scenario: {"seed":25,"controllers":[{"name":"paused-wave"}],"initialObjects":[],"workload":[{"at":7500,"type":"create","object":{"kind":"Wave","metadata":{"name":"fleet-0","namespace":"default"},"spec":{"image":"app:2","paused":true}}},{"at":16500,"kind":"Wave","key":"default/fleet-0","type":"patch","patch":{"spec":{"image":"app:1"}}},{"at":19500,"kind":"Wave","key":"default/fleet-0","type":"patch","patch":{"spec":{"paused":false}}},{"at":20700,"kind":"Wave","key":"default/fleet-0","type":"update","spec":{"image":"app:2","paused":true}}],"faults":{"events":[{"kind":"watch-disconnect","nth":1,"params":{"how":"error"}},{"kind":"api-conflict","nth":6},{"kind":"flaky-downstream","at":8707,"params":{"fail":"outage","forMs":5900,"reset":true}},{"kind":"list-order","nth":18,"params":{"order":69}},{"kind":"crash-restart","nth":10,"target":"paused-wave","params":{"point":"after-write"}}],"background":[{"kind":"api-conflict","rate":0.26},{"kind":"list-order","rate":0.23}]}},
  },
  {
    name: "secret-copier",
    found: "npx tsx bench/hunt-fp-rate.ts --search guided --runs 150 --seeds 78 --only corpus:secret-copier: run 115, no-extra-destructive-actions (a crash, then the restarted informer listed Namespaces from an API server replica 8 versions behind: the mirror deleted its copy in a namespace its cache did not show yet, and made it again later; a namespace is now confirmed gone live before its copy goes)",
    scenario: {"seed":1296435374,"controllers":[{"name":"secret-mirror"}],"initialObjects":[],"workload":[{"at":3900,"type":"create","object":{"kind":"Namespace","metadata":{"name":"team-0"},"spec":{}}},{"at":6900,"kind":"Namespace","key":"team-0","type":"patch","patch":{"metadata":{"labels":{"steadystate.dev/touched":"2"}}}},{"at":8400,"type":"create","object":{"kind":"SecretMirror","metadata":{"name":"registry-1","namespace":"default"},"spec":{"type":"Opaque","data":{"token":"t-2","user":"ci"}}}},{"at":15600,"type":"create","object":{"kind":"Namespace","metadata":{"name":"team-1"},"spec":{}}},{"at":22800,"kind":"SecretMirror","key":"default/registry-1","type":"patch","patch":{"spec":{"type":"Opaque","data":{"token":"t-1"}}}},{"at":26400,"kind":"SecretMirror","key":"default/registry-0","type":"update","spec":{"type":"Opaque","data":{"token":"t-2","user":"ci"}}},{"at":28800,"type":"create","object":{"kind":"SecretMirror","metadata":{"name":"registry-0","namespace":"default"},"spec":{"type":"Opaque","data":{"token":"t-1"}}}}],"faults":{"events":[{"kind":"duplication","nth":12,"params":{"replay":4,"afterMs":215}},{"kind":"delay","nth":16,"params":{"ms":2890}},{"kind":"flaky-downstream","nth":4,"params":{"fail":"status","status":503}},{"kind":"crash-restart","nth":15,"params":{"point":"before-call"}},{"kind":"stale-snapshot","nth":3,"target":"secret-mirror","params":{"versionsBack":10,"list":true,"catchUpMs":3000}}],"background":[{"kind":"duplication","rate":0.47,"params":{"replay":1,"afterMs":277}},{"kind":"api-conflict","rate":0.5},{"kind":"flaky-downstream","rate":0.27,"params":{"fail":"reset"}},{"kind":"crash-restart","rate":0.034999999999999996},{"kind":"coalescing","rate":0.36,"params":{"ms":607}}]}},
  },
  {
    name: "pod-scheduler",
    found: "the corpus gate and npx tsx bench/hunt-fp-rate.ts --only corpus:pod-scheduler (a new case, stop 36): same-end-state (a younger Pod bound beside the room reserved for an older one whose event was lost; the older one then went elsewhere and CPU fragmented; a reconcile now binds every older pending Pod that fits first)",
    scenario: {"seed":2147483638,"controllers":[{"name":"pod-scheduler"}],"initialObjects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a","labels":{"kubernetes.io/hostname":"node-a"}},"spec":{},"status":{"capacity":{"cpu":"2","pods":"110"},"allocatable":{"cpu":"2","pods":"110"}}},{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-b","labels":{"kubernetes.io/hostname":"node-b"}},"spec":{},"status":{"capacity":{"cpu":"1","pods":"110"},"allocatable":{"cpu":"1","pods":"110"}}}],"workload":[{"at":3000,"type":"create","object":{"kind":"Pod","metadata":{"name":"probe-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"probe:1","resources":{"requests":{"cpu":"500m"}}}]}}},{"at":12000,"type":"create","object":{"kind":"Pod","metadata":{"name":"probe-1","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"probe:1","resources":{"requests":{"cpu":"500m"}}}]}}},{"at":13200,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-1","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:2","resources":{"requests":{"cpu":"1"}}}]}}},{"at":21000,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:1","resources":{"requests":{"cpu":"1"}}}]}}}],"faults":{"events":[{"kind":"api-conflict","nth":17},{"kind":"drift","at":3731,"params":{"action":"data","pick":2,"external":false}},{"kind":"list-order","nth":11,"params":{"order":10}},{"kind":"coalescing","nth":16,"params":{"ms":2774}}],"background":[{"kind":"event-loss","rate":0.48},{"kind":"watch-event-loss","rate":0.26},{"kind":"duplication","rate":0.43,"params":{"replay":3,"afterMs":5}},{"kind":"reordering","rate":0.03,"params":{"holdMs":2572}}]}},
  },
  {
    name: "pod-scheduler",
    found: "the corpus gate, seed 11: no node overcommitted (recreation re-created a bound Pod with the scheduler's spec.nodeName, on a node the scheduler had filled meanwhile; recreation now applies the manifest the person declared, world.declared)",
    scenario: {"seed":1129422460,"controllers":[{"name":"pod-scheduler"}],"initialObjects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a","labels":{"kubernetes.io/hostname":"node-a"}},"spec":{},"status":{"capacity":{"cpu":"2","pods":"110"},"allocatable":{"cpu":"2","pods":"110"}}}],"workload":[{"at":0,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:1","resources":{"requests":{"cpu":"1"}}}]}}},{"at":22800,"type":"create","object":{"kind":"Pod","metadata":{"name":"batch-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"batch:1","resources":{"requests":{"cpu":"1500m"}}}]}}}],"faults":{"events":[{"kind":"recreation","at":22645,"params":{"pick":0,"gapMs":456}}],"background":[]}},
  },
  {
    name: "pod-scheduler",
    found: "npx tsx bench/hunt-fp-rate.ts --only corpus:pod-scheduler, 1 in 450 swarm runs: same-end-state (a user update that dropped spec.nodeName, refused for the bound Pod of the fault-free run and accepted for the Pod a lost event kept pending; update is now kubectl apply of the spec and keeps what nobody declared)",
    scenario: {"seed":469270784,"controllers":[{"name":"pod-scheduler"}],"initialObjects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a","labels":{"kubernetes.io/hostname":"node-a"}},"spec":{},"status":{"capacity":{"cpu":"2","pods":"110"},"allocatable":{"cpu":"2","pods":"110"}}}],"workload":[{"at":0,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:1","resources":{"requests":{"cpu":"1"}}}]}}},{"at":29100,"kind":"Pod","key":"default/web-0","type":"update","spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:2","resources":{"requests":{"cpu":"1"}}}]}},{"at":29700,"kind":"Pod","key":"default/web-0","type":"update","spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:2","resources":{"requests":{"cpu":"1"}}}]}}],"faults":{"events":[{"kind":"watch-event-loss","nth":16}],"background":[{"kind":"watch-event-loss","rate":0.32}]}},
  },
  {
    name: "paused-wave",
    found: "story probe of paused-wave (stop 36), swarm seed 2, runs 22 and 60: same-end-state (app:2's event lost until the pause, then a 500 between recording a step and moving the shard, which waited the step out until the next pause: shard-0 never moved; each lag alone is benign, and a fault-free controller slow at both ends there too: the lag variations now include one late at every change, src/harness/twin.ts lateAtEveryChange)",
    scenario: {"seed":10,"controllers":[{"name":"paused-wave"}],"initialObjects":[{"apiVersion":"example.com/v1","kind":"Wave","metadata":{"name":"fleet","namespace":"default"},"spec":{"image":"app:1","paused":false}}],"workload":[{"at":2051,"type":"patch","kind":"Wave","key":"default/fleet","patch":{"spec":{"image":"app:2"}}},{"at":6061,"type":"patch","kind":"Wave","key":"default/fleet","patch":{"spec":{"paused":true}}},{"at":12113,"type":"patch","kind":"Wave","key":"default/fleet","patch":{"spec":{"paused":false}}},{"at":14039,"type":"patch","kind":"Wave","key":"default/fleet","patch":{"spec":{"paused":true}}}],"faults":{"events":[{"kind":"event-loss","nth":6},{"kind":"api-error","nth":13,"params":{"status":500}}],"background":[]}},
  },
  {
    name: "priority-preemption",
    found: "npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 1-3 --only corpus:priority-preemption (a new case, stop 36), 9 of 900 runs: same-end-state (api's ADDED event coalesced away for 21 s: the scheduler first looked at it after a critical Pod was created, bound the critical one, and api stayed pending, where the fault-free run bound api and then evicted it; which competitor a scheduler decides on first is timing: Pods declared timing dependent, and the lag variations now include a first look after the next competitor's creation, src/harness/twin.ts firstLookAfterNext)",
    scenario: {"seed":1233186046,"controllers":[{"name":"priority-scheduler"}],"initialObjects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-b","labels":{"kubernetes.io/hostname":"node-b"}},"spec":{},"status":{"capacity":{"cpu":"1","pods":"110"},"allocatable":{"cpu":"1","pods":"110"}}}],"workload":[{"at":5013,"type":"create","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"api","namespace":"default"},"spec":{"schedulerName":"priority-scheduler","priority":100,"containers":[{"name":"app","image":"api:1","resources":{"requests":{"cpu":"1"}}}]}}},{"at":12001,"type":"create","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"critical","namespace":"default"},"spec":{"schedulerName":"priority-scheduler","priority":1000,"containers":[{"name":"app","image":"gateway:1","resources":{"requests":{"cpu":"1"}}}]}}},{"at":21600,"type":"create","object":{"kind":"Pod","metadata":{"name":"probe-1","namespace":"default"},"spec":{"schedulerName":"priority-scheduler","priority":100,"containers":[{"name":"app","image":"probe:1","resources":{"requests":{"cpu":"500m"}}}]}}},{"at":29400,"type":"create","object":{"kind":"Pod","metadata":{"name":"ingest-0","namespace":"default"},"spec":{"schedulerName":"priority-scheduler","priority":500,"containers":[{"name":"app","image":"ingest:1","resources":{"requests":{"cpu":"1"}}}]}}}],"faults":{"events":[{"kind":"coalescing","nth":0,"params":{"ms":21001}}],"background":[]}},
  },
  {
    name: "priority-preemption",
    found: "npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 1-3 --only corpus:priority-preemption (stop 37), seed 3 run 87: same-end-state (the scheduler's Pod watch stalled 15 s from critical's creation (coalescing) and a resync at 21 s placed critical and ingest together, by priority: probe stayed pending, where the fault-free run bound probe and then evicted web for ingest; a fault-free scheduler idle over the same seconds ends the same way: src/harness/twin.ts idleWindows)",
    scenario: {"seed":12,"controllers":[{"name":"priority-scheduler"}],"initialObjects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a","labels":{"kubernetes.io/hostname":"node-a"}},"spec":{},"status":{"capacity":{"cpu":"2","pods":"110"},"allocatable":{"cpu":"2","pods":"110"}}},{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-b","labels":{"kubernetes.io/hostname":"node-b"}},"spec":{},"status":{"capacity":{"cpu":"1","pods":"110"},"allocatable":{"cpu":"1","pods":"110"}}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default"},"spec":{"schedulerName":"priority-scheduler","priority":100,"containers":[{"name":"app","image":"web:1","resources":{"requests":{"cpu":"1"}}}]}}],"workload":[{"at":11991,"type":"create","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"critical","namespace":"default"},"spec":{"schedulerName":"priority-scheduler","priority":1000,"containers":[{"name":"app","image":"gateway:1","resources":{"requests":{"cpu":"1"}}}]}}},{"at":12900,"type":"create","object":{"kind":"Pod","metadata":{"name":"probe-1","namespace":"default"},"spec":{"schedulerName":"priority-scheduler","priority":100,"containers":[{"name":"app","image":"probe:1","resources":{"requests":{"cpu":"500m"}}}]}}},{"at":20100,"type":"create","object":{"kind":"Pod","metadata":{"name":"ingest-0","namespace":"default"},"spec":{"schedulerName":"priority-scheduler","priority":500,"containers":[{"name":"app","image":"ingest:1","resources":{"requests":{"cpu":"1"}}}]}}}],"faults":{"events":[{"kind":"crash-restart","nth":0,"target":"priority-scheduler","params":{"point":"after-write"}},{"kind":"coalescing","nth":2,"params":{"ms":15081}}],"background":[]}},
  },
  {
    name: "ttl-after-finished",
    found: "npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 5 --only corpus:ttl-after-finished (a new case, stop 37), 3 of 150 swarm and 4 of 150 guided runs: no-extra-destructive-actions and same-end-state (the user's TTL extension got a 429 with Retry-After 5 s; the TTL ran out in between and the Job was deleted on a live read, and the retry found it gone; userAcceptedLate now moves an action to a retry the API server refused for itself, as a fault-free patch sent then is)",
    scenario: {"seed":839936304,"controllers":[{"name":"ttl-after-finished"}],"environment":[{"name":"job"},{"name":"pod-lifecycle"}],"initialObjects":[{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"nightly","namespace":"default"},"spec":{"backoffLimit":0,"ttlSecondsAfterFinished":8,"template":{"metadata":{"annotations":{"steadystate.dev/run-ms":"1000"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"nightly:1"}]}}}}],"workload":[{"at":6000,"type":"patch","kind":"Job","key":"default/nightly","patch":{"spec":{"ttlSecondsAfterFinished":600}}},{"at":21600,"type":"create","object":{"kind":"Job","metadata":{"name":"flaky-0","namespace":"default"},"spec":{"backoffLimit":0,"ttlSecondsAfterFinished":6,"template":{"metadata":{"annotations":{"steadystate.dev/run-ms":"500","steadystate.dev/exit-code":"1"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"flaky:1"}]}}}}},{"at":25200,"type":"create","object":{"kind":"Job","metadata":{"name":"flaky-1","namespace":"default"},"spec":{"backoffLimit":0,"ttlSecondsAfterFinished":6,"template":{"metadata":{"annotations":{"steadystate.dev/run-ms":"500","steadystate.dev/exit-code":"1"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"flaky:1"}]}}}}},{"at":28500,"type":"create","object":{"kind":"Job","metadata":{"name":"flaky-2","namespace":"default"},"spec":{"backoffLimit":0,"ttlSecondsAfterFinished":600,"template":{"metadata":{"annotations":{"steadystate.dev/run-ms":"500","steadystate.dev/exit-code":"1"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"flaky:1"}]}}}}}],"faults":{"events":[{"kind":"api-error","nth":0,"target":"user","params":{"status":429,"retryAfterSeconds":5}}],"background":[]}},
  },
  {
    name: "endpoint-slices",
    found: "npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 1-3 --only corpus:endpoint-slices (a new case, stop 37), seed 3 run 43: same-end-state (API errors kept the controller from deciding until all four Pods were Ready, and it packed them otherwise than the fault-free run that published each as it came: the layout is timing by design, Services declared timing dependent, and the idle-window variation ends the same way)",
    scenario: {"seed":1085148907,"controllers":[{"name":"endpoint-slices"}],"environment":[{"name":"pod-lifecycle"}],"initialObjects":[],"workload":[{"at":2700,"type":"create","object":{"kind":"Service","metadata":{"name":"web-0","namespace":"default"},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":9090,"protocol":"TCP"}]}}},{"at":3000,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-2","namespace":"default","labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:1"}]}}},{"at":5400,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-3","namespace":"default","labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:1"}]}}},{"at":6000,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-0","namespace":"default","labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:1"}]}}},{"at":9600,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-1","namespace":"default","labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:1"}]}}},{"at":22200,"type":"create","object":{"kind":"Service","metadata":{"name":"web-1","namespace":"default"},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":9090,"protocol":"TCP"}]}}},{"at":22800,"kind":"Pod","key":"default/web-2","type":"reapply"}],"faults":{"events":[{"kind":"delay","nth":14,"params":{"ms":2179}},{"kind":"watch-disconnect","nth":4,"params":{"how":"cut"}},{"kind":"api-conflict","nth":9},{"kind":"api-error","nth":21,"params":{"status":"refused"}}],"background":[{"kind":"watch-event-loss","rate":0.27},{"kind":"delay","rate":0,"params":{"ms":4993}},{"kind":"watch-disconnect","rate":0.37,"params":{"how":"error"}},{"kind":"api-error","rate":0.04,"params":{"status":504,"applied":false}},{"kind":"flaky-downstream","rate":0.02,"params":{"fail":"status","status":500}},{"kind":"environment-pod-eviction","rate":0.05}]}},
  },
  {
    name: "pod-scheduler",
    found: "npx tsx bench/hunt-fp-rate.ts --runs 100 --seeds 97 --only corpus: (stop 37), pod-scheduler run 83 (its environment faults left out): same-end-state (web-1's ADDED event lost: the scheduler first looked again when web-0 left and bound the older batch-0 into that room, where the fault-free run had bound web-1 at once; first come, first served is timing by design: Pods declared timing dependent, and the idle-window variation ends the same way)",
    scenario: {"seed":1994205865,"controllers":[{"name":"pod-scheduler"}],"initialObjects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a","labels":{"kubernetes.io/hostname":"node-a"}},"spec":{},"status":{"capacity":{"cpu":"2","pods":"110"},"allocatable":{"cpu":"2","pods":"110"}}},{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-b","labels":{"kubernetes.io/hostname":"node-b"}},"spec":{},"status":{"capacity":{"cpu":"1","pods":"110"},"allocatable":{"cpu":"1","pods":"110"}}}],"workload":[{"at":900,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:2","resources":{"requests":{"cpu":"1"}}}]}}},{"at":2400,"type":"create","object":{"kind":"Pod","metadata":{"name":"batch-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"batch:1","resources":{"requests":{"cpu":"1500m"}}}]}}},{"at":5700,"type":"create","object":{"kind":"Pod","metadata":{"name":"batch-1","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"batch:1","resources":{"requests":{"cpu":"1500m"}}}]}}},{"at":14700,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-1","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:2","resources":{"requests":{"cpu":"1"}}}]}}},{"at":28800,"kind":"Pod","key":"default/web-0","type":"delete"}],"faults":{"events":[{"kind":"event-loss","nth":29},{"kind":"watch-event-loss","nth":0},{"kind":"stale-snapshot","nth":10,"params":{"list":true,"versionsBack":2,"catchUpMs":2646}},{"kind":"api-error","nth":28,"params":{"status":503}}],"background":[{"kind":"watch-event-loss","rate":0.14}]}},
  },
  {
    name: 'node-autoscaler',
    found: 'npx tsx bench/hunt-fp-rate.ts --search guided --runs 150 --seeds 1-3 --only corpus:node-autoscaler (stop 37), seed 3 run 116, shrunk: same-end-state (the ADDED event of a Pod lost to the scheduler: the Pods went onto the other Node, and the fault-free run\'s empty Node is the one kept; which Nodes a pool ends with follows placement: the end state leaves them out, convergence judges the pool)',
    scenario: {"seed":1176936369,"controllers":[{"name":"node-autoscaler"},{"name":"pod-scheduler"}],"initialObjects":[{"apiVersion":"autoscaling.example.com/v1","kind":"NodePool","metadata":{"name":"pool"},"spec":{"cpu":"2","minNodes":1,"maxNodes":3}}],"workload":[{"at":10500,"type":"create","object":{"kind":"Pod","metadata":{"name":"batch-1","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"batch:1","resources":{"requests":{"cpu":"1500m"}}}]}}},{"at":16500,"type":"create","object":{"kind":"Pod","metadata":{"name":"batch-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"batch:1","resources":{"requests":{"cpu":"1500m"}}}]}}},{"at":27900,"kind":"Pod","key":"default/batch-1","type":"delete"}],"faults":{"events":[{"kind":"watch-event-loss","nth":12}],"background":[]}},
  },
  {
    name: 'node-autoscaler',
    found: 'npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 1-3 --only corpus:node-autoscaler (stop 37), seed 3 run 118, shrunk: no-extra-destructive-actions (pool-0\'s ADDED event lost to the scheduler: it packed every Pod onto pool-1 and the autoscaler removed the empty pool-0, a delete the fault-free run never made; how many Nodes come and go follows placement, so Node creates and deletes are not counted and scale-down-safety judges each deletion)',
    scenario: {"seed":922212387,"controllers":[{"name":"node-autoscaler"},{"name":"pod-scheduler"}],"initialObjects":[{"apiVersion":"autoscaling.example.com/v1","kind":"NodePool","metadata":{"name":"pool"},"spec":{"cpu":"2","minNodes":1,"maxNodes":3}}],"workload":[{"at":14100,"type":"create","object":{"kind":"Pod","metadata":{"name":"probe-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"probe:1","resources":{"requests":{"cpu":"500m"}}}]}}},{"at":16500,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:1","resources":{"requests":{"cpu":"1"}}}]}}},{"at":20100,"type":"create","object":{"kind":"Pod","metadata":{"name":"batch-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"batch:1","resources":{"requests":{"cpu":"1500m"}}}]}}},{"at":28200,"kind":"Pod","key":"default/web-0","type":"delete"}],"faults":{"events":[{"kind":"watch-event-loss","nth":1}],"background":[]}},
  },
  {
    name: 'daemon-pods',
    found: 'npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 4-12 --only corpus:daemon-pods (stop 37), seed 11 run 92, its one fault kept: no-extra-destructive-actions (a slow rollout held worker-0\'s Pod not Ready when the template changed, so the controller replaced it at once, as upstream replaces an unavailable Pod first, where the fault-free run\'s Ready Pod waited its turn; then the user deleted the Node: one create and one delete more. A delete of a Pod the environment held back answers the world the fault made, not a wrong view)',
    scenario: {"seed":237596417,"controllers":[{"name":"daemon-pods"}],"environment":[{"name":"pod-lifecycle"}],"initialObjects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a","labels":{"kubernetes.io/hostname":"node-a","pool":"general"}},"spec":{},"status":{"capacity":{"cpu":"4","pods":"110"}}},{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-b","labels":{"kubernetes.io/hostname":"node-b","pool":"gpu"}},"spec":{},"status":{"capacity":{"cpu":"4","pods":"110"}}},{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"log-agent","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":"log-agent"}},"template":{"metadata":{"labels":{"app":"log-agent"}},"spec":{"nodeSelector":{"pool":"general"},"containers":[{"name":"log-agent","image":"fluent-bit:2.1"}]}},"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1}}}}],"workload":[{"at":0,"type":"create","object":{"kind":"Node","metadata":{"name":"gpu-0","labels":{"pool":"gpu"}},"spec":{}}},{"at":900,"type":"create","object":{"kind":"Node","metadata":{"name":"worker-0","labels":{"pool":"general"}},"spec":{}}},{"at":8000,"type":"patch","kind":"DaemonSet","key":"default/log-agent","patch":{"spec":{"template":{"spec":{"containers":[{"name":"log-agent","image":"fluent-bit:2.2"}]}}}}},{"at":8700,"kind":"Node","key":"worker-0","type":"delete"},{"at":10800,"kind":"Node","key":"gpu-0","type":"delete"},{"at":12000,"type":"patch","kind":"Node","key":"node-b","patch":{"metadata":{"labels":{"pool":"general"}}}},{"at":18000,"type":"patch","kind":"Node","key":"node-a","patch":{"spec":{"taints":[{"key":"example.com/maintenance","value":"true","effect":"NoExecute"}]}}},{"at":22800,"kind":"Node","key":"worker-0","type":"patch","patch":{"metadata":{"labels":{"steadystate.dev/touched":"2"}}}}],"faults":{"events":[{"kind":"environment-slow-rollout","params":{"delayMs":17783}}],"background":[]}},
  },
  {
    name: 'node-autoscaler',
    found: 'npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 4-12 --only corpus:node-autoscaler (stop 38), seed 11 run 30, shrunk: same-end-state (lost watch events moved when the autoscaler looked, the Pods were placed in another order, and greedy placement without consolidation needed three Nodes where the fault-free run packed two: how many Nodes a pool ends with follows placement)',
    scenario: {"seed":45622405,"controllers":[{"name":"node-autoscaler"},{"name":"pod-scheduler"}],"initialObjects":[{"apiVersion":"autoscaling.example.com/v1","kind":"NodePool","metadata":{"name":"pool"},"spec":{"cpu":"2","minNodes":1,"maxNodes":3}}],"workload":[{"at":0,"type":"create","object":{"kind":"Pod","metadata":{"name":"batch-1","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"batch:1","resources":{"requests":{"cpu":"1500m"}}}]}}},{"at":14700,"type":"create","object":{"kind":"Pod","metadata":{"name":"probe-1","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"probe:1","resources":{"requests":{"cpu":"500m"}}}]}}},{"at":16500,"type":"create","object":{"kind":"Pod","metadata":{"name":"probe-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"probe:1","resources":{"requests":{"cpu":"500m"}}}]}}},{"at":21000,"type":"create","object":{"kind":"Pod","metadata":{"name":"batch-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"batch:1","resources":{"requests":{"cpu":"1500m"}}}]}}}],"faults":{"events":[],"background":[{"kind":"watch-event-loss","rate":0.49}]}},
  },
  {
    name: 'node-autoscaler',
    found: 'npx tsx bench/hunt-fp-rate.ts --search guided --runs 150 --seeds 4-12 --only corpus:node-autoscaler (stop 38), seed 7 run 15, shrunk: same-end-state (one coalesced ADDED event of a Pod: the autoscaler saw it later and the fault-free run\'s third Node was never needed)',
    scenario: {"seed":2147483640,"controllers":[{"name":"node-autoscaler"},{"name":"pod-scheduler"}],"initialObjects":[{"apiVersion":"autoscaling.example.com/v1","kind":"NodePool","metadata":{"name":"pool"},"spec":{"cpu":"2","minNodes":1,"maxNodes":3}}],"workload":[{"at":0,"type":"create","object":{"kind":"Pod","metadata":{"name":"batch-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"batch:1","resources":{"requests":{"cpu":"1500m"}}}]}}},{"at":25800,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-1","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:1","resources":{"requests":{"cpu":"1"}}}]}}},{"at":28500,"type":"create","object":{"kind":"Pod","metadata":{"name":"probe-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"probe:1","resources":{"requests":{"cpu":"500m"}}}]}}},{"at":28800,"type":"create","object":{"kind":"Pod","metadata":{"name":"web-0","namespace":"default"},"spec":{"schedulerName":"example-scheduler","containers":[{"name":"app","image":"web:2","resources":{"requests":{"cpu":"1"}}}]}}}],"faults":{"events":[{"kind":"coalescing","nth":11,"params":{"ms":4996}}],"background":[]}},
  },
  {
    name: 'runner-pool',
    found: 'npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 1-4 --only corpus:runner-pool (a new case, stop 38), seed 4 run 101: same-end-state (a second pool the workload named runners-2, beside the first pool\'s runner runners-2 that only the fault-free run kept: the first version of interchangeable replaced the name inside every value, the other pool\'s labels and its runners\' names too; now a name is replaced only where it is a whole value, and never one an object of another kind has)',
    scenario: {"seed":1418194677,"controllers":[{"name":"runner-pool"},{"name":"build-scheduler"}],"initialObjects":[],"workload":[{"at":300,"kind":"RunnerPool","key":"default/runners","type":"delete"},{"at":3600,"type":"create","object":{"kind":"RunnerPool","metadata":{"name":"runners","namespace":"default"},"spec":{"replicas":3,"image":"runner:1"}}},{"at":9600,"type":"create","object":{"kind":"RunnerPool","metadata":{"name":"runners-2","namespace":"default"},"spec":{"replicas":3,"image":"runner:1"}}},{"at":10800,"kind":"RunnerPool","key":"default/runners","type":"update","spec":{"replicas":2,"image":"runner:2"}},{"at":15600,"kind":"BuildJob","key":"default/build-0","type":"patch","patch":{"spec":{"pool":"runners"}}},{"at":21900,"type":"create","object":{"kind":"RunnerPool","metadata":{"name":"runners-1","namespace":"default"},"spec":{"replicas":2,"image":"runner:2"}}},{"at":21900,"kind":"BuildJob","key":"default/build-0","type":"patch","patch":{"spec":{"pool":"runners","durationMs":15000}}},{"at":22800,"type":"create","object":{"kind":"BuildJob","metadata":{"name":"build-0","namespace":"default"},"spec":{"pool":"runners","durationMs":4000}}}],"faults":{"events":[{"kind":"watch-event-loss","nth":0},{"kind":"duplication","nth":17,"params":{"replay":2,"afterMs":1773}},{"kind":"reordering","nth":8,"params":{"holdMs":2542}},{"kind":"stale-snapshot","nth":16,"params":{"versionsBehind":6,"forMs":12280,"whole":true}}],"background":[{"kind":"duplication","rate":0.46,"params":{"replay":1,"afterMs":1506}},{"kind":"stale-snapshot","rate":0.18,"params":{"lagMs":4046}},{"kind":"flaky-downstream","rate":0.35,"params":{"fail":"reset"}},{"kind":"list-order","rate":0.32}]}},
  },
  {
    name: 'runner-pool',
    found: 'npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 1-4 --only corpus:runner-pool (a new case, stop 38), seed 2 run 118: safety-invariants (the pool deleted and made again under its name while a build ran: a new runners-0 took the next build while the first still named runners-0; builds now record their runner by uid, and one whose runner was made again is Lost)',
    scenario: {"seed":134373905,"controllers":[{"name":"runner-pool"},{"name":"build-scheduler"}],"initialObjects":[],"workload":[{"at":6900,"type":"create","object":{"kind":"BuildJob","metadata":{"name":"build-0","namespace":"default"},"spec":{"pool":"runners","durationMs":4000}}},{"at":12600,"type":"create","object":{"kind":"RunnerPool","metadata":{"name":"runners","namespace":"default"},"spec":{"replicas":3,"image":"runner:1"}}},{"at":14400,"type":"create","object":{"kind":"BuildJob","metadata":{"name":"build-1","namespace":"default"},"spec":{"pool":"runners","durationMs":8000}}}],"faults":{"events":[{"kind":"recreation","at":14234,"params":{"pick":5,"gapMs":53}},{"kind":"reordering","nth":11,"params":{"holdMs":2906}}],"background":[]}},
  },
  {
    name: 'fenced-writer',
    found: 'a fenced-writer hunt over a bigger world (maxObjects 3, maxActions 6; a new case, stop 38), seed 5, shrunk: same-end-state (the second replica POSTed a table in its last reconcile and was stopped at the end of the fault window before recording it; the leader found it by owner and recorded it. The timeline left that reconcile open, so the table was hidden from the end state as a request in flight; a replica stopped now ends its reconcile as a crash does)',
    scenario: {"seed":0,"controllers":[{"name":"fenced-writer","replicas":2}],"initialObjects":[],"workload":[{"at":0,"type":"create","object":{"kind":"RouteTable","metadata":{"name":"internal","namespace":"default"},"spec":{"routes":[{"host":"shop.example.com","backend":"shop-v1"}]}}},{"at":0,"type":"create","object":{"kind":"RouteTable","metadata":{"name":"internal-2","namespace":"default"},"spec":{"routes":[{"host":"shop.example.com","backend":"shop-v1"}]}}},{"at":10200,"type":"create","object":{"kind":"RouteTable","metadata":{"name":"public","namespace":"default"},"spec":{"routes":[{"host":"shop.example.com","backend":"shop-v1"}]}}}],"faults":{"events":[{"kind":"crash-restart","nth":14,"params":{"point":"before-call"}},{"kind":"second-replica","at":1954},{"kind":"flaky-downstream","nth":14,"params":{"fail":"latency","ms":3796}}],"background":[]},"options":{"restartDelayMs":16000}},
  },
  {
    name: 'service-account-tokens',
    found: 'a service-account-tokens hunt over a bigger world (maxObjects 3, maxActions 6; a new case, stop 38), seed 10, shrunk to the case\'s own accounts: convergence (two accounts rotating every 5 s, 1.3 s apart, whose first change after the settle start was a retry after API errors and the relist: every later rotation counted as noise, and no 3 quiet checks came; a key\'s changes before its first timer firing in the settle phase are now the world catching up)',
    scenario: {"seed":1919974882,"controllers":[{"name":"service-account-tokens"}],"initialObjects":[],"workload":[{"at":10200,"type":"create","object":{"kind":"ServiceAccount","metadata":{"name":"deployer","namespace":"default"},"spec":{"rotateAfterSeconds":12}}},{"at":14400,"type":"create","object":{"kind":"ServiceAccount","metadata":{"name":"builder","namespace":"default"},"spec":{"rotateAfterSeconds":5}}},{"at":20700,"kind":"ServiceAccount","key":"default/deployer","type":"update","spec":{"rotateAfterSeconds":5}}],"faults":{"events":[{"kind":"coalescing","nth":3,"params":{"ms":1208}},{"kind":"api-error","nth":1,"params":{"status":500}},{"kind":"api-error","nth":2,"params":{"status":500}},{"kind":"api-error","nth":22,"params":{"status":500}},{"kind":"api-error","nth":25,"params":{"status":500}},{"kind":"api-error","nth":29,"params":{"status":500}},{"kind":"api-error","nth":30,"params":{"status":500}},{"kind":"api-error","nth":32,"params":{"status":500}},{"kind":"api-error","nth":41,"params":{"status":500}},{"kind":"api-error","nth":44,"params":{"status":500}},{"kind":"api-error","nth":46,"params":{"status":500}},{"kind":"api-error","nth":47,"params":{"status":500}},{"kind":"api-error","nth":51,"params":{"status":500}},{"kind":"api-error","nth":53,"params":{"status":500}},{"kind":"api-error","nth":54,"params":{"status":500}},{"kind":"api-error","nth":56,"params":{"status":500}},{"kind":"api-error","nth":57,"params":{"status":500}},{"kind":"api-error","nth":58,"params":{"status":500}},{"kind":"api-error","nth":59,"params":{"status":500}},{"kind":"api-error","nth":60,"params":{"status":500}},{"kind":"api-error","nth":62,"params":{"status":500}},{"kind":"api-error","nth":66,"params":{"status":500}},{"kind":"api-error","nth":70,"params":{"status":500}},{"kind":"api-error","nth":71,"params":{"status":500}},{"kind":"api-error","nth":73,"params":{"status":500}}],"background":[]}},
  },
];

describe('false-positive corpus: hunt findings replayed', () => {
  for (const r of REGRESSIONS) {
    it(`${r.name}: ${r.found}`, { timeout: 60_000 }, async () => {
      const c = falsePositiveCorpus.find((x) => x.name === r.name)!;
      const properties = propertiesOf(c);
      const out = await check(c.controllers, { ...c.options, properties, runs: 1, seed: 1, shrink: false, corpus: { scenarios: [r.scenario] } });
      expect(out.ok ? 'passed' : `${out.property}: ${out.summary}`).toBe('passed');
    });
  }
});

/**
 * A user's deletion that overtakes an adoption: the garbage collector cascades along the
 * ownerReferences of the moment, so whether a Machine the pool adopts is collected with the pool
 * depends on which came first. A crash-restart that delays the adoption past the deletion ends as a
 * fault-free run whose controller decided later (the `slow` variation, src/harness/twin.ts
 * slowPoints); a watch down for seconds that keeps a Machine held after it left the pool is a
 * weakness of the cascading design the faults expose, and the pool with a finalizer survives it.
 */
/** A corpus case's controller judged on one scenario with every default property (the case's own in their place): 'passed' or `<property>: <summary>`. */
async function judgeCase(name: string, controller: ControllerDefinition | readonly ControllerDefinition[], scenario: Scenario): Promise<string> {
  const c = falsePositiveCorpus.find((x) => x.name === name)!;
  const properties = propertiesOf(c);
  const out = await check(Array.isArray(controller) ? [...controller] : [controller as ControllerDefinition], { ...c.options, properties, runs: 1, seed: 1, shrink: false, corpus: { scenarios: [scenario] } });
  return out.ok ? 'passed' : `${out.property}: ${out.summary}`;
}

describe('machine-pool: deletions that overtake an adoption', () => {
  const judge = (controller: ControllerDefinition, scenario: Scenario) => judgeCase('machine-pool', controller, scenario);
  // found by scratch hunts of the cascading pool (seed 1, run 355, same-end-state): machine-1 outlived its pool
  const overtaken: Scenario = {"seed": 2119560294, "controllers": [{"name": "machine-pool"}], "initialObjects": [], "workload": [{"at": 0, "type": "create", "object": {"kind": "Machine", "metadata": {"name": "machine-0", "namespace": "default"}, "spec": {"pool": "east", "cpu": 4}}}, {"at": 0, "type": "create", "object": {"kind": "Machine", "metadata": {"name": "machine-1", "namespace": "default"}, "spec": {"pool": "east", "cpu": 4}}}, {"at": 0, "type": "create", "object": {"kind": "MachinePool", "metadata": {"name": "east", "namespace": "default"}, "spec": {"maxMachines": 2}}}, {"at": 300, "kind": "MachinePool", "key": "default/east", "type": "delete"}], "faults": {"events": [{"kind": "crash-restart", "nth": 0, "params": {"point": "after-write"}}], "background": []}};
  // seed 1, run 469: 18 cuts of the Machine watch from 5.1 s to 22.1 s; machine-0 left the pool at 8.7 s, the pool was deleted at 23.1 s
  const watchDown: Scenario = {"seed": 21, "controllers": [{"name": "machine-pool"}], "initialObjects": [], "workload": [{"at": 0, "type": "create", "object": {"kind": "Machine", "metadata": {"name": "machine-0", "namespace": "default"}, "spec": {"pool": "east", "cpu": 4}}}, {"at": 5100, "type": "create", "object": {"kind": "MachinePool", "metadata": {"name": "east", "namespace": "default"}, "spec": {"maxMachines": 2}}}, {"at": 8700, "kind": "Machine", "key": "default/machine-0", "type": "update", "spec": {"pool": "south", "cpu": 4}}, {"at": 23100, "kind": "MachinePool", "key": "default/east", "type": "delete"}], "faults": {"events": [], "background": [{"kind": "reordering", "rate": 0.08, "params": {"holdMs": 6}}, {"kind": "watch-disconnect", "rate": 0.42, "params": {"how": "cut"}}, {"kind": "api-conflict", "rate": 0.11}]}};

  it('a crash-restart delays an adoption past the pool\'s deletion: the Machine outlives the pool, as in a fault-free run of a slower controller', { timeout: 60_000 }, async () => {
    expect(await judge(cascadePoolController, overtaken)).toBe('passed');
  });
  it('a Machine watch down for seconds keeps a Machine that left held, and the cascade deletes it: caught; the finalizer\'s live release survives it', { timeout: 60_000 }, async () => {
    expect(await judge(cascadePoolController, watchDown)).toMatch(/^same-end-state: .*machine-0 is missing/);
    expect(await judge(machinePoolController, watchDown)).toBe('passed');
  });
});

describe('node-drainer: evictions under a cordon the user soon lifts', () => {
  const c = falsePositiveCorpus.find((x) => x.name === 'node-drainer')!;
  const judge = (controller: ControllerDefinition, scenario: Scenario) => judgeCase('node-drainer', controller, scenario);
  const node = (at: number, unschedulable: boolean): WorkloadAction => ({ at, kind: 'MaintenanceNode', key: 'node-0', type: 'update', spec: { unschedulable } });
  const start: WorkloadAction[] = [
    { at: 0, type: 'create', object: { kind: 'MaintenanceNode', metadata: { name: 'node-0' }, spec: { unschedulable: false } } },
    { at: 0, type: 'create', object: { kind: 'Pod', metadata: { name: 'web-0', namespace: 'default' }, spec: { nodeName: 'node-0', containers: [{ name: 'app', image: 'app:1' }] } } },
  ];
  const scenario = (workload: WorkloadAction[], faults: Scenario['faults'], seed = 5): Scenario => ({ seed, controllers: [{ name: 'node-drainer' }], initialObjects: [], workload, faults });

  // found by a bigger world (npx tsx scratch/onecasew.ts node-drainer 500 1: run 466, recovery, then same-end-state)
  it('a revert of the cordon does not bring the evicted Pod back, and recovery does not ask it to (the Pod is not the node\'s)', { timeout: 60_000 }, async () => {
    expect(await judge(nodeDrainerController, scenario([...start, node(100, true), node(400, false)], { events: [], background: [] }))).toBe('passed');
  });

  it('a cordon seen late (its event delayed past the uncordon) evicts nothing, as a fault-free run of a controller busy then', { timeout: 60_000 }, async () => {
    const late = scenario([...start, { at: 13_200, kind: 'MaintenanceNode', key: 'node-0', type: 'patch', patch: { spec: { unschedulable: true } } }, node(13_500, false)], { events: [{ kind: 'delay', nth: 3, params: { ms: 299 } }], background: [] }, 0);
    expect(await judge(nodeDrainerController, late)).toBe('passed');
  });

  it('the buggy twin, evicting on a cordon only its cache still shows, is caught', { timeout: 60_000 }, async () => {
    // seed 2 run 28 of the twin's gate: the node's DELETED event lost under a lagging watch, then a Pod bound to it
    const stale = scenario(
      [
        { at: 0, type: 'create', object: { kind: 'MaintenanceNode', metadata: { name: 'node-0' }, spec: { unschedulable: true } } },
        { at: 4800, kind: 'MaintenanceNode', key: 'node-0', type: 'delete' },
        { at: 5400, type: 'create', object: { kind: 'Pod', metadata: { name: 'web-0', namespace: 'default' }, spec: { nodeName: 'node-0', containers: [{ name: 'app', image: 'app:1' }] } } },
      ],
      { events: [{ kind: 'stale-snapshot', nth: 1, params: { lagMs: 1, forMs: 1000 } }], background: [{ kind: 'watch-event-loss', rate: 0.05 }] },
      1016985522,
    );
    expect(await judge(c.buggy!.controllers[0]!, stale)).toMatch(/^no-extra-destructive-actions: extra destructive actions on Pod default\/web-0/);
    expect(await judge(nodeDrainerController, stale)).toBe('passed');
  });
});

describe('dns-sync: two syncs of one zone, first come first served', () => {
  const judge = (controller: ControllerDefinition, scenario: Scenario) => judgeCase('dns-sync', controller, scenario);
  // npx tsx scratch/onecasew.ts dns-sync 400 2 (run 222) and 5 (run 30, shrunk): the other sync published the name first
  const lostAdded: Scenario = {"seed":744199324,"controllers":[{"name":"dns-sync"}],"initialObjects":[],"workload":[{"at":0,"type":"create","object":{"kind":"Service","metadata":{"name":"www-0","namespace":"default","annotations":{"external-dns.alpha.kubernetes.io/hostname":"www.example.org"}},"spec":{"type":"LoadBalancer","ports":[443],"externalIP":"203.0.113.20"}}},{"at":0,"type":"create","object":{"kind":"DnsSync","metadata":{"name":"sync-0","namespace":"default"},"spec":{"zone":"example.org"}}},{"at":0,"type":"create","object":{"kind":"DnsSync","metadata":{"name":"sync-1","namespace":"default"},"spec":{"zone":"example.org"}}}],"faults":{"events":[],"background":[{"kind":"event-loss","rate":0.46}]}};
  const failedCalls: Scenario = {"seed":0,"controllers":[{"name":"dns-sync"}],"initialObjects":[],"workload":[{"at":0,"type":"create","object":{"kind":"DnsSync","metadata":{"name":"sync-1","namespace":"default"},"spec":{"zone":"example.com"}}},{"at":300,"type":"create","object":{"kind":"DnsSync","metadata":{"name":"sync-0","namespace":"default"},"spec":{"zone":"example.com"}}},{"at":20100,"type":"create","object":{"kind":"Service","metadata":{"name":"api-0","namespace":"default","annotations":{"external-dns.alpha.kubernetes.io/hostname":"api.example.com"}},"spec":{"type":"LoadBalancer","ports":[443],"externalIP":"203.0.113.10"}}}],"faults":{"events":[{"kind":"api-error","nth":0,"params":{"status":500}},{"kind":"api-error","nth":4,"params":{"status":500}}],"background":[]}};

  it('a sync whose notifications were lost publishes after its rival, as in a fault-free run whose workqueue held its key', { timeout: 60_000 }, async () => {
    expect(await judge(dnsSyncController, lostAdded)).toBe('passed');
  });

  it('a sync whose API calls failed is overtaken by one created later', { timeout: 60_000 }, async () => {
    expect(await judge(dnsSyncController, failedCalls)).toBe('passed');
  });
});

describe('batch-fanout: a shard started for a run the user had just shrunk', () => {
  // npx tsx bench/hunt-fp-rate.ts --runs 300 --seeds 1-10 --only corpus:batch-fanout: seed 5 run 22, no-extra-destructive-actions (the shrink's event held 1.1 s while a shard finished: the next shard started, then deleted)
  const lateShrink: Scenario = {"seed":557254483,"controllers":[{"name":"batch-fanout"}],"environment":[{"name":"job"},{"name":"pod-lifecycle"}],"initialObjects":[],"workload":[{"at":22200,"type":"create","object":{"kind":"BatchRun","metadata":{"name":"etl-0","namespace":"default"},"spec":{"shards":4,"parallelism":1,"image":"etl:1"}}},{"at":27300,"kind":"BatchRun","key":"default/etl-0","type":"update","spec":{"shards":1,"parallelism":1,"image":"etl:1"}},{"at":30000,"kind":"BatchRun","key":"default/etl-0","type":"reapply"}],"faults":{"events":[{"kind":"flaky-downstream","nth":12,"params":{"fail":"status","status":500}},{"kind":"list-order","nth":1,"params":{"order":9}},{"kind":"environment-pod-eviction","at":29986,"params":{"node":0}},{"kind":"delay","nth":18,"params":{"ms":2484}}],"background":[{"kind":"reordering","rate":0.46,"params":{"holdMs":1139}},{"kind":"delay","rate":0.21,"params":{"ms":478}},{"kind":"list-order","rate":0.43},{"kind":"environment-crash-looping-pod","rate":0.02}]}};

  it('creating and deleting that shard is what a fault-free run whose informer lagged behind the user does', { timeout: 60_000 }, async () => {
    expect(await judgeCase('batch-fanout', batchFanoutController, lateShrink)).toBe('passed');
  });
});

describe('cert-chain: a CertificateRequest deleted and made again under its name', () => {
  // hunt seed 48 run 80 (no-fighting): the recreation fault replaced the Certificate, so its request
  // was collected and made again under the same name; the approver and the signer wrote the new
  // request's conditions as they had the old one's, which no-fighting counted as one field changing hands
  const remade: Scenario = {"seed":6,"controllers":[{"name":"certificates"},{"name":"cert-approver"},{"name":"cert-signer"}],"initialObjects":[],"workload":[{"at":27600,"type":"create","object":{"kind":"Certificate","metadata":{"name":"web-0","namespace":"default"},"spec":{"dnsName":"web.example.com"}}}],"faults":{"events":[{"kind":"watch-disconnect","nth":10,"params":{"how":"gone"}},{"kind":"stale-snapshot","nth":11,"params":{"list":true,"versionsBack":2,"catchUpMs":1306}},{"kind":"flaky-downstream","at":9900,"params":{"fail":"outage","forMs":700,"reset":true}},{"kind":"recreation","at":29999,"params":{"pick":3,"gapMs":1}}],"background":[{"kind":"watch-event-loss","rate":0.4},{"kind":"reordering","rate":0,"params":{"holdMs":2940}},{"kind":"watch-disconnect","rate":0.11,"params":{"how":"gone"}},{"kind":"flaky-downstream","rate":0.25,"params":{"fail":"reset"}},{"kind":"list-order","rate":0.11}]}};
  it('the two requests are two objects: no field changed hands', { timeout: 60_000 }, async () => {
    expect(await judgeCase('cert-chain', falsePositiveCorpus.find((x) => x.name === 'cert-chain')!.controllers, remade)).toBe('passed');
  });
});

describe('schema-migrations: a lock row taken and released per migration', () => {
  // the first spec change's notification lost: one pass applies 002 and 003, taking and releasing
  // the advisory lock row twice (the fault-free run took it once per pass); the second lock is
  // alike the first, which no-extra-destructive-actions first counted as a bucket destroyed and made again
  const twoInOnePass: Scenario = {"seed":1,"controllers":[{"name":"schema-migrations"}],"initialObjects":[],"workload":[{"at":0,"type":"create","object":{"kind":"Schema","metadata":{"name":"orders-0","namespace":"default"},"spec":{"versions":["001"]}}},{"at":5000,"kind":"Schema","key":"default/orders-0","type":"update","spec":{"versions":["001","002"]}},{"at":5001,"kind":"Schema","key":"default/orders-0","type":"update","spec":{"versions":["001","002","003"]}}],"faults":{"events":[{"kind":"event-loss","nth":0}],"background":[]},"options":{"faultWindowMs":30000,"settleMs":30000}};
  // a crash right after the lock was taken: the next pass takes the lock over (deletes it, takes a new one)
  const lockLeftByCrash: Scenario = {"seed":1,"controllers":[{"name":"schema-migrations"}],"initialObjects":[],"workload":[{"at":0,"type":"create","object":{"kind":"Schema","metadata":{"name":"orders-0","namespace":"default"},"spec":{"versions":["001"]}}}],"faults":{"events":[{"kind":"crash-restart","nth":2,"params":{"point":"after-fetch"}}],"background":[]},"options":{"faultWindowMs":30000,"settleMs":30000}};
  const controllers = falsePositiveCorpus.find((x) => x.name === 'schema-migrations')!.controllers;
  it('a lock taken and released again by the reconcile that took it is no replacement', { timeout: 60_000 }, async () => {
    expect(await judgeCase('schema-migrations', controllers, twoInOnePass)).toBe('passed');
  });
  it('a resource the fault-free run only ever made and removed within one reconcile holds nothing to lose (a lock taken over after a crash)', { timeout: 60_000 }, async () => {
    expect(await judgeCase('schema-migrations', controllers, lockLeftByCrash)).toBe('passed');
  });
});

describe('payout-transfer: a Payout deleted before its controller ever saw it', () => {
  // hunt seed 2 run 63 (same-end-state): the Payout's ADDED event was lost and the user deleted it
  // 12 s later unseen; the fault-free run had paid it, this one never did. A fault-free run whose
  // controller's key waited past the deletion ends the same way (overtakenPoints).
  const unseen: Scenario = {"seed": 2147483645, "controllers": [{"name": "payout"}], "initialObjects": [], "workload": [{"at": 1800, "type": "create", "object": {"kind": "Payout", "metadata": {"name": "p-0", "namespace": "default"}, "spec": {"amount": 100, "account": "acct-1"}}}, {"at": 13800, "kind": "Payout", "key": "default/p-0", "type": "delete"}], "faults": {"events": [{"kind": "coalescing", "nth": 13, "params": {"ms": 3981}}, {"kind": "reordering", "nth": 15, "params": {"holdMs": 2842}}], "background": [{"kind": "event-loss", "rate": 0.49}, {"kind": "stale-snapshot", "rate": 0.02, "params": {"lagMs": 3732}}, {"kind": "flaky-downstream", "rate": 0.17, "params": {"fail": "status", "status": 500}}, {"kind": "coalescing", "rate": 0.18, "params": {"ms": 2383}}]}};
  it('ends as a fault-free run whose key waited past the deletion: passes', { timeout: 60_000 }, async () => {
    expect(await judgeCase('payout-transfer', falsePositiveCorpus.find((x) => x.name === 'payout-transfer')!.controllers, unseen)).toBe('passed');
  });
});

describe('slot-allocator: a claim first seen after the user shrank its pool', () => {
  // hunt seed 57 run 48 (same-end-state): wide-0's ADDED event was lost at 5.4 s, the user shrank
  // pool-0 to two slots at 29.4 s, and the claim, first seen at the settle relist, asks for slot 2:
  // Pending, where the fault-free run had bound it at once. A fault-free run whose key waited past
  // the pool's change ends the same way (overtakenPoints).
  const seenAfterShrink: Scenario = {"seed": 1891490420, "controllers": [{"name": "slot-allocator"}], "initialObjects": [], "workload": [{"at": 2400, "type": "create", "object": {"kind": "SlotPool", "metadata": {"name": "pool-0", "namespace": "default"}, "spec": {"size": 4}}}, {"at": 5400, "type": "create", "object": {"kind": "SlotClaim", "metadata": {"name": "wide-0", "namespace": "default"}, "spec": {"pool": "pool-0", "slot": 2}}}, {"at": 14400, "kind": "SlotPool", "key": "default/pool-1", "type": "reapply"}, {"at": 21600, "type": "create", "object": {"kind": "SlotClaim", "metadata": {"name": "low-0", "namespace": "default"}, "spec": {"pool": "pool-0", "slot": 0}}}, {"at": 24300, "kind": "SlotPool", "key": "default/pool-1", "type": "patch", "patch": {"metadata": {"labels": {"steadystate.dev/touched": "3"}}}}, {"at": 26400, "type": "create", "object": {"kind": "SlotPool", "metadata": {"name": "pool-1", "namespace": "default"}, "spec": {"size": 4}}}, {"at": 28800, "kind": "SlotPool", "key": "default/pool-1", "type": "delete"}, {"at": 29400, "kind": "SlotPool", "key": "default/pool-0", "type": "update", "spec": {"size": 2}}], "faults": {"events": [{"kind": "watch-event-loss", "nth": 1}, {"kind": "watch-disconnect", "nth": 20, "params": {"how": "close"}}, {"kind": "coalescing", "nth": 13, "params": {"ms": 980}}], "background": [{"kind": "flaky-downstream", "rate": 0.31, "params": {"fail": "status", "status": 500}}, {"kind": "list-order", "rate": 0.49}]}};
  it('ends as a fault-free run whose key waited past the pool change: passes', { timeout: 60_000 }, async () => {
    expect(await judgeCase('slot-allocator', falsePositiveCorpus.find((x) => x.name === 'slot-allocator')!.controllers, seenAfterShrink)).toBe('passed');
  });
});

describe('cert-renewal: renewals by the clock at the edges of the quiet tail and of the run', () => {
  // each failed before its fix (found by scratch/onecase.ts on the new corpus case, seed 1)
  const controllers = falsePositiveCorpus.find((x) => x.name === 'cert-renewal')!.controllers;
  const judge = (s: Scenario) => judgeCase('cert-renewal', controllers, s);
  // idempotence: a renewal due 40 ms after the tail began, done by the tail's own reconcile (scheduled.ts dueDuring)
  const dueInPoke: Scenario = {"controllers": [{"name": "cert-renewal"}], "initialObjects": [], "seed": 0, "workload": [{"at": 15000, "type": "create", "object": {"kind": "ManagedCert", "metadata": {"name": "site-1", "namespace": "default"}, "spec": {"domain": "shop.example.com"}}}, {"at": 28500, "type": "create", "object": {"kind": "ManagedCert", "metadata": {"name": "site-0", "namespace": "default"}, "spec": {"domain": "shop.example.com"}}}], "faults": {"events": [{"kind": "coalescing", "nth": 4, "params": {"ms": 1499}}], "background": []}};
  // idempotence: a renewal its timer began at 59.9 s wrote at 60 s (idempotence.ts: reconciles begun before the tail)
  const straddling: Scenario = {"controllers": [{"name": "cert-renewal"}], "initialObjects": [], "seed": 1033716361, "workload": [{"at": 14400, "type": "create", "object": {"kind": "ManagedCert", "metadata": {"name": "site-1", "namespace": "default"}, "spec": {"domain": "shop.example.com"}}}], "faults": {"events": [{"kind": "api-error", "nth": 0, "params": {"status": 500}}, {"kind": "reordering", "nth": 0, "params": {"holdMs": 433}}], "background": []}};
  // no-duplicate-side-effects and same-end-state: the run ended between issuing the new certificate and revoking the old (settledDownstream)
  const cutShort: Scenario = {"controllers": [{"name": "cert-renewal"}], "initialObjects": [], "seed": 0, "workload": [{"at": 6300, "type": "create", "object": {"kind": "ManagedCert", "metadata": {"name": "site-0", "namespace": "default"}, "spec": {"domain": "shop.example.com"}}}], "faults": {"events": [{"kind": "delay", "nth": 0, "params": {"ms": 3518}}, {"kind": "api-conflict", "nth": 0}], "background": []}};
  // no-hot-loop: a leader-election Lease renewal landed in a tail reconcile, which made the key look unsettled (scheduled.ts)
  const leaseInPoke: Scenario = {"seed":0,"controllers":[{"name":"cert-renewal"}],"initialObjects":[],"workload":[{"at":10200,"type":"create","object":{"kind":"ManagedCert","metadata":{"name":"site-0","namespace":"default"},"spec":{"domain":"shop.example.com"}}}],"faults":{"events":[{"kind":"event-loss","nth":0},{"kind":"crash-restart","nth":2,"params":{"point":"before-call"}}],"background":[]}};
  // idempotence: a renewal due at 60.141 s waited 19 ms for the worker, busy with the other certificate's renewal (hunt seed 1 run 69)
  const queued: Scenario = {"seed": 1254832384, "controllers": [{"name": "cert-renewal"}], "initialObjects": [], "workload": [{"at": 3900, "kind": "ManagedCert", "key": "default/site-0", "type": "delete"}, {"at": 10800, "type": "create", "object": {"kind": "ManagedCert", "metadata": {"name": "site-0", "namespace": "default"}, "spec": {"domain": "shop.example.com"}}}, {"at": 12300, "kind": "ManagedCert", "key": "default/site-1", "type": "patch", "patch": {"metadata": {"labels": {"steadystate.dev/touched": "1"}}}}, {"at": 15000, "kind": "ManagedCert", "key": "default/site-0", "type": "patch", "patch": {"metadata": {"labels": {"steadystate.dev/touched": "2"}}}}, {"at": 25800, "type": "create", "object": {"kind": "ManagedCert", "metadata": {"name": "site-1", "namespace": "default"}, "spec": {"domain": "www.example.com"}}}], "faults": {"events": [{"kind": "reordering", "nth": 9, "params": {"holdMs": 2354}}, {"kind": "watch-disconnect", "nth": 16, "params": {"how": "gone"}}, {"kind": "flaky-downstream", "at": 28800, "params": {"fail": "outage", "forMs": 6500, "status": 503}}, {"kind": "drift", "at": 11130, "params": {"action": "scale", "pick": 2, "external": true}}], "background": [{"kind": "event-loss", "rate": 0.47}, {"kind": "watch-event-loss", "rate": 0.48}, {"kind": "reordering", "rate": 0.03, "params": {"holdMs": 1307}}, {"kind": "watch-disconnect", "rate": 0.5, "params": {"how": "error"}}, {"kind": "flaky-downstream", "rate": 0.5, "params": {"fail": "reset"}}, {"kind": "coalescing", "rate": 0.5, "params": {"ms": 3888}}]}};
  for (const [name, s] of [['a renewal that waited for a busy worker', queued], ['a renewal due while the tail\'s reconcile ran', dueInPoke], ['a renewal begun before the tail, written in it', straddling], ['a renewal the end of the run cut short', cutShort], ['a Lease renewal inside a tail reconcile', leaseInPoke]] as const) {
    it(`${name}: scheduled work, passes`, { timeout: 60_000 }, async () => {
      expect(await judge(s)).toBe('passed');
    });
  }
});

describe('paused-wave: where a pause froze a wave depends on how far its controller got', () => {
  // each failed same-end-state before overtakenPoints held a key past a change of its own object
  const controllers = falsePositiveCorpus.find((x) => x.name === 'paused-wave')!.controllers;
  const judge = (s: Scenario) => judgeCase('paused-wave', controllers, s);
  // gate seed 1 run 64: API errors and their backoff slowed the walk to app:1 by ~14 s, and the pause froze it with one shard still on app:2 (the fault-free run had finished at 12.3 s)
  const walkLagged: Scenario = {"seed": 2147483643, "controllers": [{"name": "paused-wave"}], "initialObjects": [], "workload": [{"at": 0, "type": "create", "object": {"kind": "Wave", "metadata": {"name": "fleet-0", "namespace": "default"}, "spec": {"image": "app:2", "paused": false}}}, {"at": 6300, "kind": "Wave", "key": "default/fleet-0", "type": "patch", "patch": {"spec": {"image": "app:1"}}}, {"at": 26400, "kind": "Wave", "key": "default/fleet-0", "type": "update", "spec": {"image": "app:2", "paused": true}}], "faults": {"events": [], "background": [{"kind": "api-error", "rate": 0.37, "params": {"status": 500}}]}};
  // hunt seed 1 run 138: the Wave's ADDED event and the resync after it were lost, so its controller first saw it paused on app:2 (14.4 s later) and made its shards on app:2; the fault-free run had made them on app:1
  const firstSeenPaused: Scenario = {"seed": 1056021138, "controllers": [{"name": "paused-wave"}], "initialObjects": [], "workload": [{"at": 1200, "type": "create", "object": {"kind": "Wave", "metadata": {"name": "fleet-0", "namespace": "default"}, "spec": {"image": "app:1", "paused": false}}}, {"at": 15600, "kind": "Wave", "key": "default/fleet-0", "type": "update", "spec": {"image": "app:2", "paused": true}}, {"at": 24000, "kind": "Wave", "key": "default/fleet-0", "type": "patch", "patch": {"metadata": {"labels": {"steadystate.dev/touched": "2"}}}}], "faults": {"events": [{"kind": "delay", "nth": 17, "params": {"ms": 4644}}, {"kind": "api-conflict", "nth": 10}, {"kind": "flaky-downstream", "at": 11100, "params": {"fail": "outage", "forMs": 5200, "status": 500}}, {"kind": "crash-restart", "nth": 13, "params": {"point": "after-write"}}], "background": [{"kind": "event-loss", "rate": 0.49}, {"kind": "delay", "rate": 0.28, "params": {"ms": 6}}, {"kind": "coalescing", "rate": 0.24, "params": {"ms": 4}}]}};
  // gate seed 10 run 50: first seen after a label patch (9.9 s) and an image change (14.4 s) of a paused wave: held past the first change alone it would still make its shards on app:2
  const pastTwoChanges: Scenario = {"seed": 581420484, "controllers": [{"name": "paused-wave"}], "initialObjects": [], "workload": [{"at": 0, "type": "create", "object": {"kind": "Wave", "metadata": {"name": "fleet-0", "namespace": "default"}, "spec": {"image": "app:2", "paused": true}}}, {"at": 9900, "kind": "Wave", "key": "default/fleet-0", "type": "patch", "patch": {"metadata": {"labels": {"steadystate.dev/touched": "0"}}}}, {"at": 14400, "kind": "Wave", "key": "default/fleet-0", "type": "patch", "patch": {"spec": {"image": "app:1"}}}], "faults": {"events": [{"kind": "watch-event-loss", "nth": 0}], "background": [{"kind": "event-loss", "rate": 0.22}]}};
  it('a walk slowed by API errors, frozen by the pause where it had got: passes', { timeout: 60_000 }, async () => {
    expect(await judge(walkLagged)).toBe('passed');
  });
  it('a wave first seen after the user paused it: passes', { timeout: 60_000 }, async () => {
    expect(await judge(firstSeenPaused)).toBe('passed');
  });
  it('a wave first seen after two changes of it: passes', { timeout: 60_000 }, async () => {
    expect(await judge(pastTwoChanges)).toBe('passed');
  });
});

describe('license-seat: ids that name resources which name other resources', () => {
  // corpus seed 1 run 28 (same-end-state): two Seats made in the other order in this run, so the
  // billing customers got ids 1 and 3 the other way round; each grant names its subscription, which
  // names its customer. The subscription was named by its content with the customer's raw id inside.
  const swapped: Scenario = {"seed": 2053405457, "controllers": [{"name": "license-seat"}], "initialObjects": [], "workload": [{"at": 0, "type": "create", "object": {"kind": "Seat", "metadata": {"name": "seat-0", "namespace": "default"}, "spec": {"user": "ada@example.com", "plan": "team"}}}, {"at": 8100, "type": "create", "object": {"kind": "Seat", "metadata": {"name": "seat-1", "namespace": "default"}, "spec": {"user": "ada@example.com", "plan": "team"}}}], "faults": {"events": [], "background": [{"kind": "watch-event-loss", "rate": 0.22}]}};
  it('a grant naming a subscription naming a customer compares by what each names, all the way down: passes', { timeout: 60_000 }, async () => {
    expect(await judgeCase('license-seat', falsePositiveCorpus.find((x) => x.name === 'license-seat')!.controllers, swapped)).toBe('passed');
  });
});

describe('payout-transfer: two payouts each deleted before their controller saw them', () => {
  // hunt seed 64 run 123 (same-end-state): both ADDED notifications were lost and each Payout was
  // deleted unseen (7.5 s and 0.9 s later); the fault-free run paid both. A fault-free run whose
  // key waited past each deletion ends without either transfer, but the transfers were compared by
  // position in the list (the first against the first), so no one variation matched both: they are
  // now identified by the Payout whose uid they hold.
  const bothUnseen: Scenario = {"seed": 2118555807, "controllers": [{"name": "payout"}], "initialObjects": [], "workload": [{"at": 1500, "type": "create", "object": {"kind": "Payout", "metadata": {"name": "p-0", "namespace": "default"}, "spec": {"amount": 250, "account": "acct-1"}}}, {"at": 9000, "kind": "Payout", "key": "default/p-0", "type": "delete"}, {"at": 26100, "type": "create", "object": {"kind": "Payout", "metadata": {"name": "p-1", "namespace": "default"}, "spec": {"amount": 250, "account": "acct-1"}}}, {"at": 27000, "kind": "Payout", "key": "default/p-1", "type": "delete"}], "faults": {"events": [{"kind": "coalescing", "nth": 11, "params": {"ms": 1753}}, {"kind": "event-loss", "nth": 0}], "background": [{"kind": "event-loss", "rate": 0.38}, {"kind": "reordering", "rate": 0.01, "params": {"holdMs": 6}}, {"kind": "delay", "rate": 0.05, "params": {"ms": 50}}, {"kind": "coalescing", "rate": 0.38, "params": {"ms": 1077}}]}};
  it('each transfer compares with its own payout\'s: passes', { timeout: 60_000 }, async () => {
    expect(await judgeCase('payout-transfer', falsePositiveCorpus.find((x) => x.name === 'payout-transfer')!.controllers, bothUnseen)).toBe('passed');
  });
});

describe('node-drainer: a revert of a spec that was never in force', () => {
  // hunt seed 64 run 63 (recovery, without any fault): the user's patch at 3.3 s also moved the
  // bound Pod's spec.nodeName and was refused (Invalid), so the image "restored" at 15.3 s was never
  // the Pod's; recovery judged it a revert and compared with a spec the Pod never had.
  const neverInForce: Scenario = {"seed": 13, "controllers": [{"name": "node-drainer"}], "initialObjects": [], "workload": [{"at": 2700, "type": "create", "object": {"kind": "Pod", "metadata": {"name": "web-0", "namespace": "default"}, "spec": {"nodeName": "node-1", "containers": [{"name": "app", "image": "app:1"}]}}}, {"at": 3300, "kind": "Pod", "key": "default/web-0", "type": "patch", "patch": {"spec": {"nodeName": "node-0", "containers": [{"name": "app", "image": "app:2"}]}}}, {"at": 6600, "kind": "Pod", "key": "default/web-0", "type": "patch", "patch": {"spec": {"containers": [{"name": "app", "image": "app:1"}]}}}, {"at": 15300, "kind": "Pod", "key": "default/web-0", "type": "patch", "patch": {"spec": {"containers": [{"name": "app", "image": "app:2"}]}}}, {"at": 29700, "type": "create", "object": {"kind": "Pod", "metadata": {"name": "pinned-0", "namespace": "default", "annotations": {"maintenance.example.com/skip-drain": "true"}}, "spec": {"nodeName": "node-0", "containers": [{"name": "app", "image": "app:1"}]}}}], "faults": {"events": [{"kind": "reordering", "nth": 17, "params": {"holdMs": 2973}}, {"kind": "watch-disconnect", "nth": 6, "params": {"how": "close"}}, {"kind": "stale-snapshot", "nth": 5, "params": {"list": true, "versionsBack": 4, "catchUpMs": 690}}, {"kind": "api-conflict", "nth": 9}], "background": [{"kind": "watch-event-loss", "rate": 0.09}, {"kind": "duplication", "rate": 0.21, "params": {"replay": 2, "afterMs": 1414}}, {"kind": "watch-disconnect", "rate": 0.28, "params": {"how": "gone"}}, {"kind": "stale-snapshot", "rate": 0.17, "params": {"lagMs": 4309}}, {"kind": "api-conflict", "rate": 0.39}, {"kind": "flaky-downstream", "rate": 0.32, "params": {"fail": "hang"}}]}};
  it('recovery does not judge it (it says why): passes', { timeout: 60_000 }, async () => {
    expect(await judgeCase('node-drainer', falsePositiveCorpus.find((x) => x.name === 'node-drainer')!.controllers, neverInForce)).toBe('passed');
  });
});

describe('slot-allocator: a pool first seen after the user shrank it, 3.3 s after it was made', () => {
  // corpus hunt seed 67 run 116 (same-end-state): the pool's ADDED event was folded into a later
  // version, so the controller first saw it after the user shrank it (3.3 s on) and the claim for
  // slot 2 stays Pending, where the fault-free run bound it at once. overtakenPoints held a first
  // decision only past an input's change more than 10 s later; nothing covered the 10 s before.
  const shrunkSoon: Scenario = {"seed": 810994879, "controllers": [{"name": "slot-allocator"}], "initialObjects": [], "workload": [{"at": 11400, "kind": "SlotClaim", "key": "default/wide-0", "type": "patch", "patch": {"metadata": {"labels": {"steadystate.dev/touched": "3"}}}}, {"at": 13800, "type": "create", "object": {"kind": "SlotClaim", "metadata": {"name": "wide-0", "namespace": "default"}, "spec": {"pool": "pool-0", "slot": 2}}}, {"at": 16800, "type": "create", "object": {"kind": "SlotPool", "metadata": {"name": "pool-0", "namespace": "default"}, "spec": {"size": 4}}}, {"at": 17400, "type": "create", "object": {"kind": "SlotClaim", "metadata": {"name": "low-0", "namespace": "default"}, "spec": {"pool": "pool-0", "slot": 0}}}, {"at": 20100, "kind": "SlotPool", "key": "default/pool-0", "type": "update", "spec": {"size": 2}}, {"at": 27300, "kind": "SlotClaim", "key": "default/low-0", "type": "reapply"}], "faults": {"events": [{"kind": "coalescing", "nth": 2, "params": {"ms": 4780}}, {"kind": "event-loss", "nth": 20}, {"kind": "watch-disconnect", "nth": 4, "params": {"how": "close"}}], "background": [{"kind": "api-error", "rate": 0.48, "params": {"status": 504, "applied": false}}, {"kind": "crash-restart", "rate": 0.018}]}};
  it('ends as a fault-free run whose claim waited past the pool change: passes', { timeout: 60_000 }, async () => {
    expect(await judgeCase('slot-allocator', falsePositiveCorpus.find((x) => x.name === 'slot-allocator')!.controllers, shrunkSoon)).toBe('passed');
  });
});
