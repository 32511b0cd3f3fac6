/** CLI fixture: a module that exports things, none of them a controller. */
export const replicas = 3;
export function reconcile(): void {}
