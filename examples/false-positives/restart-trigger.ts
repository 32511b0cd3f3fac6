import { defineController, fakeRestService, type ReconcileContext } from '../../src/index.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { recovery } from '../../properties/recovery.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * An annotation-triggered one-shot action, `kubectl rollout restart` style: a `HostedApp` runs at
 * a hosting platform, and setting its template annotation `example.com/restartedAt` (in
 * `spec.template.metadata.annotations`, where `kubectl rollout restart` writes its own, so a
 * restart is a spec change with a generation) asks for one restart of the app's instances. The
 * controller calls the platform's restart endpoint once per distinct value and records the value
 * it handled (and the restart's id) in `status.lastRestart`; a value equal to the one recorded is
 * done, whatever events arrive again.
 *
 * Once means once through crashes, lost answers, duplicated events and stale reads, so: the app is
 * read live (a cache still showing the status from before the last restart was recorded would ask
 * again), the request carries an idempotency key made of the app's uid and the value (a retry
 * after a crash between the call and the status write, or after an answer the network lost, gets
 * the first restart back instead of restarting again), and the status write carries the live
 * resourceVersion (a value changed meanwhile gets a 409 and is handled by the next reconcile).
 * Values that came and went before the controller saw them are not restarted (level-triggered:
 * one restart for the value that stands, as a Deployment rolls once for two quick restarts), so
 * which restarts the platform holds depends on how far the controller had got when the user set
 * the next value: the kind is declared timing dependent to same-end-state (found by the hunt: a
 * value replaced while the platform was down was restarted in the fault-free run only).
 *
 * Its buggy twin calls without an idempotency key and records the value only after the call, as
 * the first version of such a controller does: a crash between the call and the status write, or
 * a restart the platform made but whose answer was lost, restarts the app twice for one value.
 */
export const HOSTED_APP = 'HostedApp';
export const PLATFORM_API = 'https://platform.example/v1';
export const RESTARTED_AT = 'example.com/restartedAt';

interface AppSpec {
  image: string;
  template?: { metadata?: { annotations?: Record<string, string> } };
}
interface AppStatus {
  lastRestart?: { restartedAt: string; id: string };
  observedGeneration?: number;
}
/** A restart at the platform: which app (its uid), for which value. */
interface Restart {
  app: string;
  restartedAt: string;
}

function define(mistake: 'none' | 'no-key') {
  return async function reconcile(ctx: ReconcileContext): Promise<void> {
    const app = await ctx.client.tryGet<AppSpec, AppStatus>(HOSTED_APP, ctx.key, { live: true });
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    const gen = app.metadata.generation;
    const want = app.spec.template?.metadata?.annotations?.[RESTARTED_AT];
    const done = app.status.lastRestart;
    if (want === undefined || want === '' || want === done?.restartedAt) {
      await writeStatus(ctx, app, { ...(done ? { lastRestart: done } : {}), observedGeneration: gen });
      return;
    }
    const api = jsonApi(ctx.fetch, PLATFORM_API);
    // BUG (no-key): without a key, a call repeated after a crash or a lost answer restarts again
    const r = await api.create<Restart>('restarts', { app: app.metadata.uid, restartedAt: want }, mistake === 'none' ? { idempotencyKey: `${app.metadata.uid}/${want}` } : {});
    await writeStatus(ctx, app, { lastRestart: { restartedAt: want, id: r.id }, observedGeneration: gen });
  };
}

const defineTrigger = (mistake: 'none' | 'no-key') => defineController({ name: 'restart-trigger', for: HOSTED_APP, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: define(mistake) });

export const restartTriggerController = defineTrigger('none');

const at = (image: string, restartedAt?: string) => ({ image, ...(restartedAt !== undefined ? { template: { metadata: { annotations: { [RESTARTED_AT]: restartedAt } } } } : {}) });

export const restartTrigger: FalsePositiveCase = {
  name: 'restart-trigger',
  description: 'kubectl-rollout-restart style: a HostedApp whose template annotation restartedAt changes gets one restart at a hosting platform per distinct value (idempotency key uid/value, live read), the handled value recorded in status',
  controllers: [restartTriggerController],
  options: {
    objects: { kind: HOSTED_APP, name: 'shop', spec: [at('shop:1', '2024-05-01T10:00:00Z'), at('shop:1', '2024-05-02T08:30:00Z'), at('shop:1'), at('shop:2', '2024-05-01T10:00:00Z')] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: PLATFORM_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  // the restart's id is the platform's; which restarts happened is history: a value the user replaced
  // before the controller came to it is never restarted (one restart for the value that stands). A
  // restart is an action, not state: a spec reverted to before restartedAt was set does not
  // un-restart the app, and the record of the last restart stays (recovery leaves it out; hunt
  // seed 82, no fault: the revert's end kept status.lastRestart)
  properties: endStateProperties('status.lastRestart.id').map((p) =>
    p.name === 'same-end-state'
      ? sameEndState({ masks: [...(sameEndState().options['masks'] as string[]), 'status.lastRestart.id'], timingDependent: [HOSTED_APP] })
      : p.name === 'recovery'
        ? recovery({ masks: [...(recovery().options['masks'] as string[]), 'status.lastRestart'] })
        : p,
  ),
  buggy: {
    controllers: [defineTrigger('no-key')],
    caughtBy: ['no-duplicate-side-effects'],
    why: 'it calls the restart endpoint without an idempotency key and records the value only after the call: a crash in between, or a restart whose answer was lost, restarts the app twice for one value',
  },
};
