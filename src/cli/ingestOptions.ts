// The flags that decide which files an index holds and how they are read, shared by `docs-rag index` and `docs-rag mcp`
// (whose --watch runs index the folder too: the same flags keep both runs selecting the same files, the same way).
import { defaultConfig, type IngestConfig, type OcrConfig } from '../rag/config';
import { UsageError } from './common';

export const INGEST_FLAGS = {
  'follow-external-symlinks': { type: 'boolean' },
  'no-ignore-files': { type: 'boolean' },
  ocr: { type: 'string' },
  'ocr-langs': { type: 'string' },
  'ocr-max-pages': { type: 'string' },
  'parse-timeout': { type: 'string' },
} as const;

export interface IngestFlagValues {
  'follow-external-symlinks'?: boolean;
  'no-ignore-files'?: boolean;
  ocr?: string;
  'ocr-langs'?: string;
  'ocr-max-pages'?: string;
  'parse-timeout'?: string;
}

/** The ingest settings the flags give (only those given, plus OCR's defaults). */
export function ingestOverrides(values: IngestFlagValues): Partial<IngestConfig> {
  const parseTimeoutMs = parseTimeoutOption(values['parse-timeout']);
  return {
    ocr: ocrOption(values.ocr, values['ocr-langs'], values['ocr-max-pages']),
    ...(parseTimeoutMs ? { parseTimeoutMs } : {}),
    ...(values['follow-external-symlinks'] ? { followExternalSymlinks: true } : {}),
    ...(values['no-ignore-files'] ? { useIgnoreFiles: false } : {}),
  };
}

/** `--parse-timeout SECONDS`: the per-file parse deadline (also per recognised OCR page); undefined = the default. */
export function parseTimeoutOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(seconds >= 1) || seconds > 3600) {
    throw new UsageError(`--parse-timeout takes seconds from 1 to 3600, e.g. --parse-timeout 120; got "${value}"`);
  }
  return Math.round(seconds * 1000);
}

/** `--ocr on|off`, `--ocr-langs deu+eng`, `--ocr-max-pages N`: OCR of scanned PDF pages and images (default on, deu+eng, 50). */
export function ocrOption(onOff: string | undefined, langs: string | undefined, maxPages: string | undefined): OcrConfig {
  const ocr = { ...defaultConfig().ingest.ocr! };
  if (onOff !== undefined) {
    if (onOff !== 'on' && onOff !== 'off') throw new UsageError(`--ocr must be on or off, got "${onOff}"`);
    ocr.enabled = onOff === 'on';
  }
  if (langs !== undefined) {
    if (!/^[a-z_]{3,12}(\+[a-z_]{3,12})*$/i.test(langs)) throw new UsageError(`--ocr-langs takes tesseract codes joined by "+", e.g. deu+eng; got "${langs}"`);
    ocr.languages = langs;
  }
  if (maxPages !== undefined) {
    const n = Number(maxPages);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--ocr-max-pages must be a whole number ≥ 0, got "${maxPages}"`);
    ocr.maxPages = n;
  }
  return ocr;
}
