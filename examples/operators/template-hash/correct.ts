/** The template-hash annotator as client-node's README has it: an informer that stopped is restarted after 5 s. */
import { main } from './annotator.js';

main({ restartOnError: true });
