// npx tsx scratch/rt46/story-config-keys.ts : config-keys (correct and no-null twin) under a story
// that drops a key and puts the spec back: create {debug}, update to {info, mode}, update back to {debug}.
import { check, type Story } from '../../src/index.js';
import { configKeysCase } from './fixtures/controllers.js';
const ks = { apiVersion: 'example.com/v1', kind: 'KeySet', metadata: { name: 'app', namespace: 'default' }, spec: { entries: { 'log.level': 'debug' } } };
const story: Story = {
  objects: [ks],
  actions: [
    { at: 5_000, type: 'update', kind: 'KeySet', key: 'default/app', spec: { entries: { 'log.level': 'info', mode: 'a' } } },
    { at: 10_000, type: 'apply', object: ks },
  ],
};
for (const [label, ctrls] of [['correct', configKeysCase.controllers], ['no-null', configKeysCase.buggy!]] as const) {
  const r = await check([...ctrls], { story, runs: Number(process.argv[2] ?? 50), seed: 1 });
  console.log(label, r.ok ? 'PASS' : `FAIL ${r.property}: ${r.summary}`);
}
