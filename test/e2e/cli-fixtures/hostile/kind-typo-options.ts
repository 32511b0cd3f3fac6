// SLOPPY: a hot-looping ReplicaSet controller whose checkOptions.objects name the kind with a typo
// ('Replicaset'): every generated object is of a kind the controller does not watch.
import { makeBuggy } from './buggy.js';
export const kindTypo = makeBuggy('kind-typo');
export const checkOptions = { objects: { kind: 'Replicaset', spec: [{ replicas: 2 }, { replicas: 3 }] } };
