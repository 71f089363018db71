/** Jest globalTeardown of the "integration" project: stops the cluster global-setup.ts started (if any). */
declare global {
  var hooklineStopCluster: (() => Promise<void>) | undefined;
}

export default async function globalTeardown(): Promise<void> {
  const stop = globalThis.hooklineStopCluster;
  globalThis.hooklineStopCluster = undefined;
  await stop?.();
}
