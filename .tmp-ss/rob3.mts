import { check } from '../src/check.js';
import * as m from '../test/e2e/cli-fixtures/network.js';
const f = globalThis.fetch;
const r = await check(m.callsNetwork, { ...m.checkOptions, seed: 1 });
console.log(r.ok, r.property, r.summary, '\n', r.explanation, globalThis.fetch === f);
