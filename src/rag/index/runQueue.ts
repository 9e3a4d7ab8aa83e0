// Serialises index runs of one folder and merges the requests that wait into one run, while each request keeps its
// own cancellation and progress:
// - every request waiting when a run starts becomes a member of that run (paths are united; one request without paths
//   or with `full` widens the run to a scan or a rebuild);
// - progress of the run goes to every member that has not been cancelled;
// - a member cancelled while it waits leaves the queue (its promise rejects with an AbortError) and takes nothing
//   else with it;
// - a member cancelled during its run aborts that run; it gets the run's (cancelled) result, and every other member is
//   queued again at once, so cancelling one request never drops another's work.
// Pure logic (no VS Code): the VS Code EngineHost drives it with the indexer.

export interface QueuedRequest<P> {
  /** Changed / created / deleted paths relative to the folder; undefined = scan the whole folder. */
  paths?: string[];
  /** Rebuild from scratch. */
  full?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: P) => void;
}

/** What one merged run is asked to do. */
export interface MergedRun<P> {
  paths?: string[];
  full: boolean;
  /** Aborted when any member of the run is cancelled (the others are run again). */
  signal: AbortSignal;
  onProgress: (p: P) => void;
  /** Whether requests wait behind this run (a long run can give way: it ends early, and they run next). */
  othersWaiting: () => boolean;
}

interface Member<R, P> {
  request: QueuedRequest<P>;
  resolve: (r: R) => void;
  reject: (err: unknown) => void;
  /** Set while the member is part of a run: aborts that run. */
  abortRun?: () => void;
  detach?: () => void;
}

export function abortError(): Error {
  const err = new Error('cancelled');
  err.name = 'AbortError';
  return err;
}

/** The work of several requests as one run. */
export function mergeRequests<P>(requests: QueuedRequest<P>[]): { paths?: string[]; full: boolean } {
  const full = requests.some((r) => r.full === true);
  if (requests.some((r) => r.paths === undefined)) return { full };
  return { paths: [...new Set(requests.flatMap((r) => r.paths ?? []))], full };
}

export class RunQueue<R, P> {
  private pending: Member<R, P>[] = [];
  private running?: Promise<void>;
  private scheduled = false;
  private readonly idleWaiters: (() => void)[] = [];

  /**
   * @param runner does one merged run
   * @param stoppedEarly whether a result is that of a run that stopped before its work was done (default: every
   *   result of an aborted run is taken as stopped early)
   */
  constructor(
    private readonly runner: (run: MergedRun<P>) => Promise<R>,
    private readonly stoppedEarly: (result: R) => boolean = () => true,
  ) {}

  /** Queues a request; resolves with the result of the run that did its work. */
  request(request: QueuedRequest<P>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (request.signal?.aborted) {
        reject(abortError());
        return;
      }
      const member: Member<R, P> = { request, resolve, reject };
      if (request.signal) {
        const signal = request.signal;
        const onAbort = () => {
          if (member.abortRun) member.abortRun();
          else if (this.pending.includes(member)) {
            this.pending = this.pending.filter((m) => m !== member);
            member.detach?.();
            reject(abortError());
            this.settleIdle();
          }
        };
        signal.addEventListener('abort', onAbort, { once: true });
        member.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.pending.push(member);
      this.schedule();
    });
  }

  /** True while a run is going on or requests wait. */
  busy(): boolean {
    return this.running !== undefined || this.pending.length > 0 || this.scheduled;
  }

  /** Resolves when no run is going on and nothing waits. */
  idle(): Promise<void> {
    if (!this.busy()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settleIdle(): void {
    if (this.busy()) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    // A microtask later: requests made in the same tick join the same run.
    queueMicrotask(() => {
      this.scheduled = false;
      this.startNext();
    });
  }

  private startNext(): void {
    if (this.running) return;
    const members = this.pending;
    this.pending = [];
    if (members.length === 0) {
      this.settleIdle();
      return;
    }
    const abort = new AbortController();
    const cancelled = new Set<Member<R, P>>();
    for (const m of members) {
      m.abortRun = () => {
        cancelled.add(m);
        abort.abort();
      };
    }
    const work = mergeRequests(members.map((m) => m.request));
    const onProgress = (p: P) => {
      for (const m of members) if (!cancelled.has(m)) m.request.onProgress?.(p);
    };
    let outcome: { ok: true; result: R } | { ok: false; error: unknown };
    this.running = (async () => {
      try {
        outcome = { ok: true, result: await this.runner({ ...work, signal: abort.signal, onProgress, othersWaiting: () => this.pending.length > 0 }) };
      } catch (error) {
        outcome = { ok: false, error };
      }
    })().then(() => {
      const again: Member<R, P>[] = [];
      const unfinished = abort.signal.aborted && (!outcome.ok || this.stoppedEarly(outcome.result));
      for (const m of members) {
        m.abortRun = undefined;
        // The run was aborted for another member before it finished: this one's work is not done, it runs again.
        if (unfinished && !cancelled.has(m)) {
          again.push(m);
          continue;
        }
        m.detach?.();
        if (outcome.ok) m.resolve(outcome.result);
        else m.reject(outcome.error);
      }
      this.pending = [...again, ...this.pending];
      this.running = undefined;
      if (this.pending.length > 0) this.schedule();
      else this.settleIdle();
    });
  }
}
