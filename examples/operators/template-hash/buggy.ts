/** The template-hash annotator without the restart: the first watch error stops it for good. */
import { main } from './annotator.js';

main({ restartOnError: false });
