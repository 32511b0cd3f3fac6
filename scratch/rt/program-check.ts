// npx tsx scratch/rt/program-check.ts <svc-ssa|job-reaper> <correct|buggy> <runs> <seed> [guided]
import { check, defineProgram } from '../../src/index.js';
import { job, podLifecycle } from '../../src/index.js';
const [which = 'svc-ssa', variant = 'correct', runs = '50', seed = '1', mode] = process.argv.slice(2);
const entry = `scratch/rt/programs/${which}/${variant}.ts`;
const program =
  which === 'svc-ssa'
    ? defineProgram({ entry, for: 'Exposure', name: 'exposure-operator', resources: [{ kind: 'Exposure', plural: 'exposures', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ app: 'web', port: 80, targetPort: 8080, type: 'ClusterIP' }, { app: 'web', port: 80, targetPort: 8080, type: 'NodePort' }, { app: 'api', port: 443, targetPort: 8443, type: 'ClusterIP' }] })
    : defineProgram({ entry, for: 'Job', name: 'job-reaper', sample: [{ template: { metadata: { labels: { app: 'report' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'report:1' }] } } }] });
const t0 = performance.now();
const opts = which === 'job-reaper' ? { environment: [job, podLifecycle], objects: { kind: 'Job', labels: { 'reaper.example.com/ttl-seconds': '5' }, spec: [{ template: { metadata: { labels: { app: 'report' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'report:1' }] } } }, { template: { metadata: { labels: { app: 'report' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'report:2' }] } } }] } } : {};
const r = await check(program, { ...opts, runs: Number(runs), seed: Number(seed), ...(mode === 'guided' ? { search: 'guided' as const } : {}) } as never);
const ms = Math.round(performance.now() - t0);
console.log(r.ok ? `PASS ${which} ${variant} seed ${seed}${mode ? ' ' + mode : ''} runs ${runs} ${ms} ms` : `FAIL ${which} ${variant} seed ${seed} at run ${r.failedAtRun}: ${r.property}: ${r.summary} (${ms} ms)\n${r.explanation.slice(0, 3000)}\nSCENARIO ${JSON.stringify(r.scenario).slice(0, 3000)}`);
