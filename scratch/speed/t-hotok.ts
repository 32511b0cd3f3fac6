// CLI target: the zoo's correct Website controller (hot-loop entry), its check options.
import { hotLoop } from '../../examples/bug-zoo/hot-loop/scenario.js';
export { website } from '../../examples/bug-zoo/hot-loop/correct.js';
export const checkOptions = hotLoop.options;
