import { simulate } from '../src/simulate.js';
import { webAppController } from '../examples/client-node/steadystate.js';
import { readFileSync } from 'node:fs';
const scenario = JSON.parse(readFileSync('/tmp/failing-scenario.json', 'utf8'));
const { run } = await simulate(scenario, { controllers: [webAppController], tailMs: 3000 });
for (const w of run.writes) if (w.kind === 'ConfigMap' || w.verb === 'delete' || w.actor.startsWith('fault') || w.actor.startsWith('env')) console.log(w.t, w.actor, w.verb, w.kind, w.key, w.uid, w.changed.join(','), w.noop ? 'noop' : '', w.error ?? '');
for (const e of run.trace) if (e.type === 'fault:inject') console.log(JSON.stringify(e));
process.exit(0);
