// What the parser worker does for the indexer after parsing a file (prepareWorker.ts is the worker entry): hash the
// bytes it read (and stop there when they are unchanged), chunk, extract the file's link rows, count its German words
// for the run's vocabulary and, with the builtin embedder, embed the passages whose embedding text is final already.
// This is the CPU-bound part of a file's indexing; in the workers it runs beside the main thread's writes. German
// passages are embedded by the main thread: their text gets compound parts from the run's vocabulary first.
import * as path from 'path';
import { chunkDocument } from '../chunk';
import type { ChunkConfig } from '../config';
import { embedBuiltin } from '../embed';
import { extractLinks, linkSource } from '../links';
import { fileWordCounts } from '../store/vocabulary';
import { embeddingText } from '../text/compounds';
import { sha256 } from './fileHash';
import { LoadError, type IndexedPassage, type LinkRow, type LoadFailureKind, type ParsedDocument } from '../types';

export interface PrepareSpec {
  /** The file's path relative to its folder (passage ids, link rows). */
  path: string;
  /** The stored record's hash when its pipeline key still holds: bytes that hash to it are not parsed again. */
  unchangedHash?: string;
  chunk: ChunkConfig;
  /** Embed with the builtin embedder at this dimension (absent: the main thread embeds, or fills vectors later). */
  builtinDimension?: number;
}

export type PreparedFile =
  | { hash: string; unchanged: true }
  /** The loader refused or failed (the hash still goes into the file's record). */
  | { hash: string; failure: { kind: LoadFailureKind | null; message: string } }
  | {
      hash: string;
      passages: IndexedPassage[];
      links: LinkRow[];
      /** fileWordCounts of the passages (the run's vocabulary adds them). */
      wordCounts: Map<string, number>;
      /** With builtinDimension: one row per passage, all but the rows listed in `unembedded` filled. */
      vectors?: Float32Array;
      unembedded?: number[];
    };

export async function prepareFile(spec: PrepareSpec, bytes: Buffer, parse: () => Promise<ParsedDocument>): Promise<{ result: PreparedFile; transfer?: ArrayBuffer[] }> {
  const hash = sha256(bytes);
  if (spec.unchangedHash === hash) return { result: { hash, unchanged: true } };
  let doc: ParsedDocument;
  let passages: IndexedPassage[];
  try {
    doc = await parse();
    // The semantic strategy's breakpoints come from the builtin lexical sketch, whatever the index's embedder.
    passages = chunkDocument(doc, { path: spec.path, fileHash: hash }, spec.chunk, { embedText: embedBuiltin });
    if (passages.length === 0) throw new LoadError('no-text', 'no extractable text');
  } catch (err) {
    const kind = err instanceof LoadError ? err.kind : null;
    return { result: { hash, failure: { kind, message: err instanceof Error ? err.message : String(err) } } };
  }
  const links = extractLinks(passages, { path: spec.path, format: doc.format, raw: linkSource(bytes, doc.format), titles: doc.title ? [doc.title] : [] });
  const wordCounts = fileWordCounts(passages);
  const dim = spec.builtinDimension;
  if (!dim) return { result: { hash, passages, links, wordCounts } };
  const vectors = new Float32Array(passages.length * dim);
  const unembedded: number[] = [];
  passages.forEach((p, i) => {
    if (p.lang === 'de') unembedded.push(i);
    else vectors.set(embedBuiltin(embeddingText(p, 'builtin'), dim), i * dim);
  });
  return { result: { hash, passages, links, wordCounts, vectors, unembedded }, transfer: [vectors.buffer] };
}

/** The worker entry's path: the .ts source under tsx, else dist/prepareWorker.js beside the running bundle. */
export function prepareWorkerPath(): string {
  if (__filename.endsWith('.ts')) return path.join(__dirname, 'prepareWorker.ts');
  return path.join(__dirname, 'prepareWorker.js');
}
