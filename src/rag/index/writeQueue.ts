// One write queue per index: every write job (an index run, a watcher update, an optimize) runs alone, in order.
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private count = 0;

  /** Runs `job` after every job queued before it; its result or error is passed through. */
  run<T>(job: () => Promise<T>): Promise<T> {
    this.count++;
    const result = this.tail.then(job, job);
    this.tail = result.then(
      () => this.count--,
      () => this.count--,
    );
    return result;
  }

  /** Jobs queued or running. */
  get pending(): number {
    return this.count;
  }

  /** Resolves when every job queued so far has finished. */
  async idle(): Promise<void> {
    while (this.count > 0) await this.tail;
  }
}
