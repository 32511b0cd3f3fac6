import { KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_HISTORY, type HistorySelector } from '../../src/index.js';
import { kubeController } from '../../src/kube-rest/kube-controller.js';
import type { KubeProcessContext } from '../../src/kube-rest/kube-controller.js';
import type { ResourceDefinition } from '../../src/kube-rest/resource-definition.js';
import { startBuggyWebAppController } from './buggy-webapp-controller.js';
import { startWebAppController } from './webapp-controller.js';
import { CRON_GROUP, CRON_KIND, CRON_PLURAL, CRON_VERSION, startCronRunner } from './cron-runner.js';
import { GROUP, KIND, PLURAL, VERSION } from './webapp.js';

/** The WebApp kind as the simulated API serves it. */
export const webAppResource: ResourceDefinition = { group: GROUP, version: VERSION, kind: KIND, plural: PLURAL, singular: 'webapp' };

function kubeConfigOf(ctx: KubeProcessContext): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(ctx.kubeconfig);
  return kc;
}

/**
 * The client-node controller as steadystate runs it: unchanged, pointed at the simulated API
 * through `ctx.kubeconfig`, with the virtual clock for its waits.
 */
export const webAppController = kubeController({
  name: 'webapp',
  for: KIND,
  resources: [webAppResource],
  sample: [{ replicas: 1, image: 'nginx:1.27' }, { replicas: 3, image: 'nginx:1.27' }],
  // a real API server answers in milliseconds, not instantly
  requestLatencyMs: 10,
  start: (ctx) => startWebAppController(kubeConfigOf(ctx), { sleep: ctx.sleep, now: ctx.now }),
});

/** The buggy variant (status written on every reconcile). */
export const buggyWebAppController = kubeController({
  name: 'webapp',
  for: KIND,
  resources: [webAppResource],
  sample: [{ replicas: 1, image: 'nginx:1.27' }],
  requestLatencyMs: 10,
  start: (ctx) => startBuggyWebAppController(kubeConfigOf(ctx), { sleep: ctx.sleep, now: ctx.now }),
});

/**
 * The client-node scheduler (examples/client-node/cron-runner.ts): decides by the virtual clock,
 * with a starting deadline. Its runs depend on when it gets to a slot, which a fault can change.
 */
export const cronRunnerController = kubeController({
  name: 'cron-runner',
  for: CRON_KIND,
  resources: [{ group: CRON_GROUP, version: CRON_VERSION, kind: CRON_KIND, plural: CRON_PLURAL, singular: 'cronschedule' }],
  sample: [{ everySeconds: 10, deadlineSeconds: 2 }, { everySeconds: 6, deadlineSeconds: 1 }],
  requestLatencyMs: 10,
  start: (ctx) => startCronRunner(kubeConfigOf(ctx)),
});

/**
 * The scheduler never prunes its run records, and which slots ran depends on when it got to them
 * (a slot missed past its deadline is never run): they are history, not state, for the properties
 * that compare end states (`properties.sameEndState({ history: cronRunHistory })`, and recovery's).
 */
export const cronRunHistory: HistorySelector[] = [...DEFAULT_HISTORY, { kind: 'ConfigMap', labels: ['cron.example.com/run-of'] }];
