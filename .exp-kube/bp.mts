import { benchKubeRest } from '../bench/kube-rest.js';
console.log(await benchKubeRest());
process.exit(0);
