// Builds a temporary index from a BEIR corpus through the real store: each document becomes one passage
// (title + text), embedded by the given embedder, written with the store's bulk append, then optimised (FTS indexes).
import { createHash } from 'node:crypto';
import { detectLanguage } from '../text/language';
import { embedderInfo, type Embedder, type IndexedPassage } from '../types';
import type { FileRecord, IndexStore } from '../store/types';
import type { BeirSet } from './datasets';
import { beirPassageId } from './runner';
import { annotateCompounds, countWords, embeddingText } from '../text/compounds';
import { Vocabulary, saveVocabulary } from '../store/vocabulary';

export async function buildBeirIndex(
  store: IndexStore,
  embedder: Embedder,
  set: BeirSet,
  o: { batch?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<{ passages: number; ms: number }> {
  const start = performance.now();
  await embedder.init();
  await store.useEmbedder(embedderInfo(embedder));
  const batch = o.batch ?? 500;
  const write = store.addNewFiles.bind(store);
  // The whole corpus is known up front: the German vocabulary (compound splitter) is counted before anything is written.
  const langs = set.corpus.map((d) => detectLanguage(`${d.title} ${d.text || d.title || ' '}`));
  const counts = new Map<string, number>();
  set.corpus.forEach((d, i) => {
    if (langs[i] === 'de') countWords(d.text || d.title || ' ', counts);
  });
  const vocab = new Vocabulary(counts);
  const splitCache = new Map<string, string[]>();
  for (let i = 0; i < set.corpus.length; i += batch) {
    const docs = set.corpus.slice(i, i + batch);
    const passages: IndexedPassage[] = docs.map((d, j) => {
      const text = d.text || d.title || ' ';
      const hash = createHash('sha256').update(`${d.title}\n${text}`).digest('hex');
      return {
        id: beirPassageId(d.id),
        path: d.id,
        fileHash: hash,
        format: 'txt',
        level: 2,
        chunkPath: 'doc/chunk-0',
        parentId: null,
        order: 0,
        headingPath: d.title ? [d.title] : [],
        title: d.title,
        text,
        overlap: '',
        lang: langs[i + j],
        loc: {},
        indexText: d.title ? `${d.title}\n${text}` : text,
      };
    });
    annotateCompounds(passages, vocab, splitCache);
    const vectors = await embedder.embed(passages.map((p) => embeddingText(p, embedder.id)));
    const updates = passages.map((p, j) => {
      const record: FileRecord = {
        path: p.path,
        size: p.text.length,
        mtimeMs: 0,
        hash: p.fileHash,
        status: 'indexed',
        reason: '',
        passages: 1,
        pipelineKey: `${embedder.id}:${embedder.model}`,
        indexedAt: Date.now(),
      };
      return { record, passages: [p], vectors: [vectors[j]] };
    });
    await write(updates);
    o.onProgress?.(Math.min(i + batch, set.corpus.length), set.corpus.length);
  }
  saveVocabulary(store.dir, vocab);
  await store.optimize();
  return { passages: set.corpus.length, ms: performance.now() - start };
}
