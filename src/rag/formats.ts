// The document formats Docs RAG reads, one row each: every list of formats, extensions or format names in the code is
// derived from this table (the type DocFormat, the extension lookup, the default include glob, the chunk sizes, how a
// passage is cited, the "which kinds are read" messages). Adding a format is a row here and its loader in
// ingest/parseBytes.ts, which the compiler asks for. Neutral: imports nothing (config.ts and types.ts build on it).

/** How a passage of a format is cited: line ranges of the file as stored, physical pages, or offsets + a verbatim quote. */
export type LocationKind = 'lines' | 'pages' | 'quote';

export interface FormatSpec {
  /** File extensions, lower-case and without the dot, the format's usual one first. */
  readonly extensions: readonly string[];
  readonly location: LocationKind;
  /** The format's name in messages ("no file of a kind Docs RAG reads (Markdown, text, …)"). */
  readonly name: string;
  /** Whether the default include glob (config.ts DEFAULT_INCLUDE, package.json's `docsRag.include`) selects it. */
  readonly included: boolean;
  /** Target passage size / overlap in characters (config.ts, `chunk.sizes`). */
  readonly chunk: { readonly size: number; readonly overlap: number };
  /** OOXML formats: the legacy binary format's extension, named when a file of that kind carries this format's name. */
  readonly legacyExtension?: string;
}

// Chunk sizes: chosen on the workspace dev questions, where a range of larger and smaller sizes scored alike; these sit
// in the middle of that range, so neither a little more nor a little less text per passage moves the results.
export const FORMATS = {
  md: { extensions: ['md', 'markdown'], location: 'lines', name: 'Markdown', included: true, chunk: { size: 1800, overlap: 225 } },
  txt: { extensions: ['txt'], location: 'lines', name: 'text', included: true, chunk: { size: 1200, overlap: 180 } },
  html: { extensions: ['html', 'htm'], location: 'lines', name: 'HTML', included: true, chunk: { size: 1500, overlap: 225 } },
  pdf: { extensions: ['pdf'], location: 'pages', name: 'PDF', included: true, chunk: { size: 1500, overlap: 225 } },
  docx: { extensions: ['docx'], location: 'quote', name: 'DOCX', included: true, chunk: { size: 1200, overlap: 180 }, legacyExtension: 'doc' },
  pptx: { extensions: ['pptx'], location: 'quote', name: 'PPTX', included: true, chunk: { size: 1200, overlap: 0 }, legacyExtension: 'ppt' },
  xlsx: { extensions: ['xlsx'], location: 'quote', name: 'XLSX', included: true, chunk: { size: 1500, overlap: 0 }, legacyExtension: 'xls' },
  // Images are read by OCR (ingest/image.ts); cited by the file and a quote of the first recognised line.
  image: { extensions: ['png', 'jpg', 'jpeg', 'tif', 'tiff', 'webp', 'bmp'], location: 'quote', name: 'images', included: true, chunk: { size: 1200, overlap: 0 } },
} as const satisfies Record<string, FormatSpec>;

/** Document formats the loaders understand. */
export type DocFormat = keyof typeof FORMATS;

export const DOC_FORMATS = Object.keys(FORMATS) as DocFormat[];

/** The spec of a format, or undefined for a name that is none (a format read from an index or a message). */
export function formatSpec(format: string): FormatSpec | undefined {
  return Object.hasOwn(FORMATS, format) ? (FORMATS as Record<string, FormatSpec>)[format] : undefined;
}

/** How passages of a format are cited (undefined for an unknown name). */
export function locationKind(format: string): LocationKind | undefined {
  return formatSpec(format)?.location;
}

/** Every extension read, in the table's order. */
export const READ_EXTENSIONS: readonly string[] = DOC_FORMATS.flatMap((f) => FORMATS[f].extensions);

/** "Markdown, text, HTML, PDF, DOCX, PPTX, XLSX, images": the kinds read, for messages. */
export const READ_KINDS: string = DOC_FORMATS.map((f) => FORMATS[f].name).join(', ');

/** The default include glob: every extension of the formats included by default. */
export function defaultIncludeGlob(): string {
  return `**/*.{${DOC_FORMATS.filter((f) => FORMATS[f].included).flatMap((f) => FORMATS[f].extensions).join(',')}}`;
}
