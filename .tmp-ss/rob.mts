import { check } from '../src/check.js';
import * as m from '../test/e2e/cli-fixtures/robustness.js';
for (const c of [m.throws, m.rejects, m.neverSettles, m.realTimer, m.realNetwork]) {
  const t = performance.now();
  const r = await check(c, { ...m.checkOptions, seed: 1, properties: undefined });
  console.log('==', c.name, Math.round(performance.now() - t), 'ms', r.ok, r.property, '\n', r.summary, '\n', r.explanation);
  console.log(globalThis.fetch.name, typeof setTimeout);
}
