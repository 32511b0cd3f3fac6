/**
 * The applier with two reconcile steps under one field manager, each applying only its own
 * annotation: each apply removes the annotation the other step applied (the manager left it
 * out), so the two steps take turns forever.
 */
import { main } from './applier.js';

main({ split: true });
