import type { JsonObject } from '../store/object.js';
import type { World } from './world.js';

/**
 * An environment actor (SPEC §2.2): a simulated peer of the controller (pods becoming Ready,
 * PVCs binding), recorded in the trace as `environment:<name>` so properties never blame the
 * controller for its writes. `install` returns an uninstall function.
 * @public
 */
export interface EnvironmentActor {
  readonly name: string;
  readonly description: string;
  install(world: World, params: JsonObject): () => void;
}
