// LanceDB settings for the processes that write an index (`docs-rag index`, the extension's indexing process and the
// vector-index step's child): LanceDB's older IVF shuffler, which keeps less of the vectors in memory while it trains
// the vector index, and scans in batches of 1,024 rows instead of 8,192 (an eighth of the vectors in memory per batch),
// which lowers the peaks of compaction and IVF training. Undocumented switches of Lance: a version without them
// ignores them (those steps then peak higher again). Not for readers: searches were not measured with them.

export const LANCE_WRITER_ENV: Readonly<Record<string, string>> = {
  LANCE_LEGACY_SHUFFLER: '1',
  LANCE_DEFAULT_BATCH_SIZE: '1024',
};

/** Sets LANCE_WRITER_ENV in this process (LanceDB reads them when it first needs them); the user's own values win. */
export function useLanceWriterEnv(): void {
  for (const [k, v] of Object.entries(LANCE_WRITER_ENV)) process.env[k] ??= v;
}
