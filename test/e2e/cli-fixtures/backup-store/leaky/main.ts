// the leaky variant, also named main: a/main.ts and b/main.ts share a name (and a corpus directory)
import { main } from '../operator.js';

main({ forgetOnStoreError: true });
