import { benchKubeRest } from '../bench/kube-rest.js';
const r = await benchKubeRest();
console.log(r.map((x) => `${x.name}: ${Math.round(x.value)}`).join('\n'));
process.exit(0);
