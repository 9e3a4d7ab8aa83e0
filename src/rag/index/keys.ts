// The key every file record carries: what built its passages (embedder and model, enrichment, chunk settings and pipeline
// version, OCR). A record with another key is redone by the next run (see plan.ts).
import type { EngineConfig, EnrichConfig } from '../config';
import { DEFAULT_OCR, type OcrOptions } from '../ingest/ocr';
import type { EmbedderInfo } from '../types';
import { pipelineFingerprint } from './plan';

export interface RunKeys {
  /** The key of a file built with every setting of this run. */
  full: string;
  /** The key of a file stored without its enrichment (model down or failing): the next run enriches it. */
  plain: string;
  /** The OCR settings of the run (defaults filled in). */
  ocr: OcrOptions;
  /** The enrichments of the run, undefined when none is on. */
  enrich?: EnrichConfig;
}

export function runKeys(info: Pick<EmbedderInfo, 'id' | 'model'>, config: EngineConfig): RunKeys {
  // Enrichment settings are part of the key: changing them redoes every file (never a mix of enriched and plain passages).
  // OCR settings decide what scanned pages and images yield (a file that had "OCR needed" is redone when OCR is on).
  const ocr = { ...DEFAULT_OCR, ...config.ingest.ocr };
  const enrich = config.enrich && (config.enrich.contextual || config.enrich.summaries) ? config.enrich : undefined;
  // So are the chunking settings and the pipeline version: a file chunked another way is redone, not kept.
  const tail = `+${pipelineFingerprint(config.chunk)}${ocrKey(ocr)}`;
  const enrichKey = enrich ? `+enrich(${enrich.contextual ? 'c' : ''}${enrich.summaries ? 's' : ''}:${enrich.model ?? 'default'})` : '';
  return { full: `${info.id}:${info.model}${enrichKey}${tail}`, plain: `${info.id}:${info.model}${tail}`, ocr, enrich };
}

/** Part of every file record's key: OCR on (with its languages) or off. */
function ocrKey(ocr: OcrOptions): string {
  return ocr.enabled ? `+ocr(${ocr.languages})` : '+ocr(off)';
}
