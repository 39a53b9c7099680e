/**
 * One upstream attempt: its own AbortController, fired by the caller's signal or by the attempt's
 * timer. Keeping them apart tells a timeout (retryable) from a caller abort (final) afterwards.
 */
export class Attempt {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timedOutFlag = false;
  private readonly onCallerAbort = (): void => this.controller.abort(this.callerSignal?.reason);

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    private readonly timeoutMs: number,
  ) {
    if (callerSignal?.aborted) this.controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.restartTimer();
  }

  /** Pass this to the `openai` client. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get timedOut(): boolean {
    return this.timedOutFlag;
  }

  get callerAborted(): boolean {
    return this.callerSignal?.aborted === true;
  }

  /**
   * Starts the timeout over. Streams call it on every chunk, so for them `timeoutMs` bounds the
   * wait for the first chunk and every gap, not the whole (possibly long) answer.
   */
  restartTimer(): void {
    clearTimeout(this.timer);
    if (this.controller.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timedOutFlag = true;
      this.controller.abort(new Error(`No answer within ${this.timeoutMs} ms`));
    }, this.timeoutMs);
    // A pending timer alone must not keep a process alive; the request's socket does that.
    this.timer.unref?.();
  }

  /** Ends the attempt; aborting here closes an upstream stream the consumer stopped reading. */
  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    if (!this.controller.signal.aborted) this.controller.abort();
  }
}
