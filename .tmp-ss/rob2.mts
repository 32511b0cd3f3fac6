import { check } from '../src/check.js';
import * as m from '../test/e2e/cli-fixtures/robustness.js';
for (const c of [m.neverSettles, m.realTimer]) {
  const r = await check(c, { ...m.checkOptions, seed: 1 });
  if (!r.ok) console.log(c.name, JSON.stringify(r.run.blocked), r.run.trace.filter(e => e.type === 'kernel:blocked').length);
}
