/** The applier applying its whole intent (both annotations) in one apply. */
import { main } from './applier.js';

main({ split: false });
