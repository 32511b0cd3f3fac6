/** The copier that starts each copy and forgets it: a failed write is a rejection nobody handles. */
import { copyTo, main } from './copier.js';

main((source, namespace) => {
  void copyTo(source, namespace);
});
