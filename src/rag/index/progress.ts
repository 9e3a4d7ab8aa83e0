// Progress and step timings of one index run.
export interface IndexProgress {
  /** 'vectors': the text is written (keyword search works), a slow embedder's vectors are being filled. */
  phase: 'scan' | 'parse' | 'embed' | 'write' | 'optimize' | 'vectors' | 'vector-index' | 'done';
  filesDone: number;
  filesTotal: number;
  currentFile?: string;
  passagesPerSec: number;
  /** Passages with their vector, of all passages (phase 'vectors' and after). */
  vectors?: { filled: number; total: number };
}

/** Counts of a run reported through `onProgress`, with the embedding rate. */
export class RunProgress {
  filesDone = 0;
  filesTotal = 0;
  passagesEmbedded = 0;
  embedMs = 0;
  vectors?: { filled: number; total: number };
  /** Milliseconds per step (diagnostics, `IndexRunResult.timings`). */
  readonly timings: Record<string, number> = {};
  private mark = performance.now();

  constructor(private readonly onProgress?: (p: IndexProgress) => void) {}

  report(phase: IndexProgress['phase'], currentFile?: string): void {
    this.onProgress?.({
      phase,
      filesDone: this.filesDone,
      filesTotal: this.filesTotal,
      currentFile,
      passagesPerSec: this.embedMs > 0 ? Math.round((this.passagesEmbedded / this.embedMs) * 1000) : 0,
      ...(this.vectors ? { vectors: { ...this.vectors } } : {}),
    });
  }

  /** Adds the time since the previous lap to step `name`. */
  lap(name: string): void {
    const now = performance.now();
    this.timings[name] = Math.round((this.timings[name] ?? 0) + now - this.mark);
    this.mark = now;
  }
}
