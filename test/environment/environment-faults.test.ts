import { describe, expect, it } from 'vitest';
import { environmentCrashLoopingPod } from '../../faults/environment-crash-looping-pod.js';
import { environmentPodEviction } from '../../faults/environment-pod-eviction.js';
import { environmentPodNeverReady } from '../../faults/environment-pod-never-ready.js';
import { environmentPvcNeverBinds } from '../../faults/environment-pvc-never-binds.js';
import { environmentSlowRollout } from '../../faults/environment-slow-rollout.js';
import { allEnvironmentActors } from '../../src/environment/index.js';
import type { FaultGenContext } from '../../src/harness/fault.js';
import { faultLaws } from '../helpers/fault-laws.js';
import { judgeWebSet, WEB_SET, webSetCorrect, webSetCreateOnce, webSetScenario, webSetTimeout } from './web-set.js';

const gen: FaultGenContext = { controllers: ['web-set'], kinds: [WEB_SET], keys: ['default/web'], faultWindowMs: 20_000, maxNth: 8 };
const options = { environment: allEnvironmentActors };

faultLaws({
  fault: environmentPodNeverReady,
  label: 'readiness deadline vs waiting',
  scenario: webSetScenario(),
  buggy: webSetTimeout,
  correct: webSetCorrect,
  judge: judgeWebSet,
  breaking: { events: [{ kind: 'environment-pod-never-ready', nth: 0 }], background: [] },
  gen,
  minimalEvent: { kind: 'environment-pod-never-ready', nth: 0 },
  options,
  search: { numRuns: 20, shrinksTo: 1 },
});

faultLaws({
  fault: environmentCrashLoopingPod,
  label: 'readiness deadline vs waiting',
  scenario: webSetScenario(),
  buggy: webSetTimeout,
  correct: webSetCorrect,
  judge: judgeWebSet,
  breaking: { events: [{ kind: 'environment-crash-looping-pod', nth: 2 }], background: [] },
  gen,
  minimalEvent: { kind: 'environment-crash-looping-pod', nth: 0 },
  options,
  search: { numRuns: 20, shrinksTo: 1 },
});

faultLaws({
  fault: environmentPvcNeverBinds,
  label: 'readiness deadline vs waiting, with a volume',
  scenario: webSetScenario({ volume: true }),
  buggy: webSetTimeout,
  correct: webSetCorrect,
  judge: judgeWebSet,
  breaking: { events: [{ kind: 'environment-pvc-never-binds', nth: 0 }], background: [] },
  gen,
  minimalEvent: { kind: 'environment-pvc-never-binds', nth: 0 },
  options,
  search: { numRuns: 10, shrinksTo: 1 },
});

faultLaws({
  fault: environmentSlowRollout,
  label: 'readiness deadline vs waiting',
  scenario: webSetScenario(),
  buggy: webSetTimeout,
  correct: webSetCorrect,
  judge: judgeWebSet,
  breaking: { events: [{ kind: 'environment-slow-rollout', params: { delayMs: 15_000 } }], background: [] },
  gen,
  minimalEvent: { kind: 'environment-slow-rollout', params: { delayMs: 1000 } },
  options,
  search: { numRuns: 30, shrinksTo: 1 },
});

faultLaws({
  fault: environmentPodEviction,
  label: 'create-once vs level-triggered pods',
  scenario: webSetScenario(),
  buggy: webSetCreateOnce,
  correct: webSetCorrect,
  judge: judgeWebSet,
  breaking: { events: [{ kind: 'environment-pod-eviction', at: 5000, params: { node: 0 } }], background: [] },
  gen,
  minimalEvent: { kind: 'environment-pod-eviction', at: 0, params: { node: 0 } },
  options,
  search: { numRuns: 30, shrinksTo: 1 },
});
