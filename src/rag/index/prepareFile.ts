// What the parser worker does for the indexer after parsing a file (prepareWorker.ts is the worker entry): hash the
// bytes it read (and stop there when they are unchanged), chunk, extract the file's link rows, count its German words
// for the run's vocabulary and, with the builtin embedder, embed the passages whose embedding text is final already
// (and encode them in the index's layout). This is the CPU-bound part of a file's indexing; in the workers it runs beside
// the main thread's writes. German passages get compound parts from the run's vocabulary (main thread) first; the main
// thread then sends their texts back to a worker to be embedded and encoded (`embedTexts`).
import * as path from 'path';
import { chunkDocument } from '../chunk';
import type { ChunkConfig } from '../config';
import { embedBuiltin } from '../embed';
import { extractLinks, linkSource } from '../links';
import { packVectors, packedBuffers, type PackedVectors } from '../store/vectorCodes';
import { fileWordCounts } from '../store/vocabulary';
import { embeddingText } from '../text/compounds';
import { sha256 } from './fileHash';
import { LoadError, type IndexedPassage, type LinkRow, type LoadFailureKind, type ParsedDocument, type VectorLayout } from '../types';

export interface PrepareSpec {
  /** The file's path relative to its folder (passage ids, link rows). */
  path: string;
  /** The stored record's hash when its pipeline key still holds: bytes that hash to it are not parsed again. */
  unchangedHash?: string;
  chunk: ChunkConfig;
  /** Embed with the builtin embedder at this dimension, packed in this layout (absent: the main thread embeds, or fills vectors later). */
  builtin?: BuiltinSpec;
}

export interface BuiltinSpec {
  dimension: number;
  layout: VectorLayout;
}

/** Texts the main thread finished (German passages with their compound parts), to embed with the builtin embedder. */
export interface EmbedSpec {
  texts: string[];
  builtin: BuiltinSpec;
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
      /** With `builtin`: one row per passage, all but the rows listed in `unembedded` filled. */
      vectors?: PackedVectors;
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
  const builtin = spec.builtin;
  if (!builtin) return { result: { hash, passages, links, wordCounts } };
  const unembedded = passages.flatMap((p, i) => (p.lang === 'de' ? [i] : []));
  const vectors = packVectors(passages.length, builtin.dimension, builtin.layout, (i) =>
    passages[i].lang === 'de' ? undefined : embedBuiltin(embeddingText(passages[i], 'builtin'), builtin.dimension),
  );
  return { result: { hash, passages, links, wordCounts, vectors, unembedded }, transfer: packedBuffers(vectors) };
}

/** The builtin vectors of finished texts, packed in the index's layout. */
export function embedTexts(spec: EmbedSpec): { result: PackedVectors; transfer: ArrayBuffer[] } {
  const { dimension, layout } = spec.builtin;
  const vectors = packVectors(spec.texts.length, dimension, layout, (i) => embedBuiltin(spec.texts[i], dimension));
  return { result: vectors, transfer: packedBuffers(vectors) };
}

/** The worker entry's path: the .ts source under tsx, else dist/prepareWorker.js beside the running bundle. */
export function prepareWorkerPath(): string {
  if (__filename.endsWith('.ts')) return path.join(__dirname, 'prepareWorker.ts');
  return path.join(__dirname, 'prepareWorker.js');
}
