import { benchKubeRest } from '../bench/kube-rest.js';
const t0 = performance.now();
console.log(await benchKubeRest(), performance.now() - t0);
process.exit(0);
