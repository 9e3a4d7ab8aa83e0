// The flags that decide which files an index holds and how they are read, shared by `docs-rag index` and `docs-rag mcp`
// (whose --watch runs index the folder too). Every run records its settings in the index; a flag not given keeps the
// recorded setting (engine.ts, settingsFromIndex), so both commands go on selecting the same files, the same way.
import type { EngineConfigOverrides } from '../rag/engine';
import { OCR_LANGUAGES, type OcrConfig } from '../rag/config';
import { UsageError } from './common';

export const INGEST_FLAGS = {
  'follow-external-symlinks': { type: 'boolean' },
  'no-follow-external-symlinks': { type: 'boolean' },
  'no-ignore-files': { type: 'boolean' },
  'ignore-files': { type: 'boolean' },
  ocr: { type: 'string' },
  'ocr-langs': { type: 'string' },
  'ocr-max-pages': { type: 'string' },
  'parse-timeout': { type: 'string' },
} as const;

export interface IngestFlagValues {
  'follow-external-symlinks'?: boolean;
  'no-follow-external-symlinks'?: boolean;
  'no-ignore-files'?: boolean;
  'ignore-files'?: boolean;
  ocr?: string;
  'ocr-langs'?: string;
  'ocr-max-pages'?: string;
  'parse-timeout'?: string;
}

/** The ingest settings the flags give, only those given (the others: the index's recorded ones, else the defaults). */
export function ingestOverrides(values: IngestFlagValues): NonNullable<EngineConfigOverrides['ingest']> {
  const parseTimeoutMs = parseTimeoutOption(values['parse-timeout']);
  const ocr = ocrOption(values.ocr, values['ocr-langs'], values['ocr-max-pages']);
  return {
    ...(Object.keys(ocr).length ? { ocr } : {}),
    ...(parseTimeoutMs ? { parseTimeoutMs } : {}),
    ...either(values, 'follow-external-symlinks', 'no-follow-external-symlinks', 'followExternalSymlinks'),
    ...either(values, 'ignore-files', 'no-ignore-files', 'useIgnoreFiles'),
  };
}

/** A setting with a flag for each value (`--ignore-files` / `--no-ignore-files`): given one, that one; both, an error. */
function either<K extends string>(values: IngestFlagValues, on: keyof IngestFlagValues, off: keyof IngestFlagValues, key: K): Partial<Record<K, boolean>> {
  if (values[on] && values[off]) throw new UsageError(`--${on} and --${off} exclude each other`);
  if (values[on]) return { [key]: true } as Partial<Record<K, boolean>>;
  if (values[off]) return { [key]: false } as Partial<Record<K, boolean>>;
  return {};
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

/** `--ocr on|off`, `--ocr-langs deu+eng`, `--ocr-max-pages N`: OCR of scanned PDF pages and images (only what is given). */
export function ocrOption(onOff: string | undefined, langs: string | undefined, maxPages: string | undefined): Partial<OcrConfig> {
  const ocr: Partial<OcrConfig> = {};
  if (onOff !== undefined) {
    if (onOff !== 'on' && onOff !== 'off') throw new UsageError(`--ocr must be on or off, got "${onOff}"`);
    ocr.enabled = onOff === 'on';
  }
  if (langs !== undefined) {
    if (!OCR_LANGUAGES.test(langs)) throw new UsageError(`--ocr-langs takes tesseract codes joined by "+", e.g. deu+eng; got "${langs}"`);
    ocr.languages = langs;
  }
  if (maxPages !== undefined) {
    const n = Number(maxPages);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--ocr-max-pages must be a whole number ≥ 0, got "${maxPages}"`);
    ocr.maxPages = n;
  }
  return ocr;
}
