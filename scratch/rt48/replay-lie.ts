// npx tsx scratch/rt48/replay-lie.ts : can the buggy fleet-fanout pass a replay of its own failure?
import { check, replay, toReportModel, toReproductionFile, type CheckFailed, type WorldView } from '../../src/index.js';
import { defaultProperties } from '../../properties/index.js';
import { convergence } from '../../properties/convergence.js';
import { fleetFanout, fannedOut } from './fixtures/fleet-fanout.js';

const props = (conv: ReturnType<typeof convergence>) => [...defaultProperties().filter((p) => !['convergence', 'same-end-state', 'recovery'].includes(p.name)), conv, ...(fleetFanout.properties ?? []).filter((p) => p.name !== 'convergence')];
const r = (await check(fleetFanout.buggy, { ...fleetFanout.options, properties: props(convergence({ converged: fannedOut })), runs: 100, seed: 1 } as never)) as CheckFailed;
console.log('check:', r.ok, r.property, r.summary.slice(0, 120));
const file = toReproductionFile(toReportModel(r) as never);
console.log('recorded property options:', JSON.stringify(file.property.options));
const tryReplay = async (tag: string, conv: ReturnType<typeof convergence>) => {
  const x = await replay(fleetFanout.buggy, file, { ...fleetFanout.options, properties: props(conv) } as never);
  console.log(tag, 'ok:', x.ok, 'sameTrace:', x.sameTrace, 'mismatches:', JSON.stringify(x.mismatches).slice(0, 300), 'nondet:', x.nondeterminism?.summary ?? null);
};
await tryReplay('R1 same predicate        ', convergence({ converged: fannedOut }));
await tryReplay('R2 predicate always true  ', convergence({ converged: () => true }));
// the same function source text, different behaviour through a closure
const lenient = true;
const viaClosure = (v: WorldView): true | string => (lenient ? true : fannedOut(v));
await tryReplay('R3 closure predicate      ', convergence({ converged: viaClosure }));
await tryReplay('R4 default convergence    ', convergence());
