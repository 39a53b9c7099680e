/**
 * A signal that aborts, with the same reason, as soon as any of `signals` does; `dispose` detaches
 * it. Used to tie a model call to both its caller's signal and the instance's close signal:
 * unlike `AbortSignal.any`, nothing stays registered on the long-lived close signal once the call
 * is over.
 */
export function linkedSignal(...signals: readonly (AbortSignal | undefined)[]): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const sources = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  const already = sources.find((signal) => signal.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, dispose: () => undefined };
  }
  const listeners = sources.map((source) => {
    const listener = () => controller.abort(source.reason);
    source.addEventListener('abort', listener, { once: true });
    return () => source.removeEventListener('abort', listener);
  });
  return { signal: controller.signal, dispose: () => listeners.forEach((remove) => remove()) };
}
