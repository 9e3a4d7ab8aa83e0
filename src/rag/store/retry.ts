// LanceDB reports concurrent commits that lost the race as "Retryable commit conflict"; the caller retries.
const RETRYABLE = /retryable commit conflict|commit conflict|preempted by concurrent transaction/i;

export async function withCommitRetry<T>(op: () => Promise<T>, attempts = 6): Promise<T> {
  let delay = 20;
  for (let i = 1; ; i++) {
    try {
      return await op();
    } catch (err) {
      if (i >= attempts || !RETRYABLE.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, delay));
      delay *= 2;
    }
  }
}
