// CLI target: the zoo's buggy hot-loop Website controller, its check options.
import { hotLoop } from '../../examples/bug-zoo/hot-loop/scenario.js';
export { buggyWebsite } from '../../examples/bug-zoo/hot-loop/buggy.js';
export const checkOptions = hotLoop.options;
