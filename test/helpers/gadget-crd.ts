import type { JsonObject, NewObject } from '../../src/store/object.js';

/**
 * The CustomResourceDefinition of `gadgets.example.com/v1` Gadget (namespaced, with /status) with
 * the given `openAPIV3Schema`: the CRD the tests of schema handling (list types, pruning,
 * defaults, validation) put in a world.
 */
export function gadgetCrd(openAPIV3Schema: JsonObject): NewObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Gadget', plural: 'gadgets' }, versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema } }] },
  };
}
