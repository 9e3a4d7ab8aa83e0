// Models the `local` embedder can download by name, each file pinned by size and SHA-256, laid out as a
// transformers.js model folder (config.json, tokenizer.json, tokenizer_config.json, onnx/model[_quantized].onnx).
// Small JSON files that the upstream repository lacks or whose sums could not be pinned are written from here
// (`inline`): they only name the architecture for transformers.js; the weights and the tokenizer are downloaded.
//
// Where the sums come from is said per model (and in EVALUATION.md, "Local embedding model"): never invented.

export interface ModelFile {
  /** Path inside the model folder (transformers.js layout). */
  path: string;
  /** Downloaded from `${base}/${source}`; absent for inline files. */
  source?: string;
  size?: number;
  sha256?: string;
  /** Written as is (small configuration files). */
  inline?: string;
}

export interface KnownModel {
  /** Name used in settings and on the command line (`--model multilingual-e5-small`). */
  id: string;
  /** Download base URL of the pinned revision. */
  base: string;
  files: ModelFile[];
  /** transformers.js dtype: 'q8' loads onnx/model_quantized.onnx, 'fp32' onnx/model.onnx. */
  dtype: 'q8' | 'fp32';
  pooling: 'mean' | 'cls';
  dimension: number;
  /** Where the pinned sums were taken from. */
  sumsSource: string;
}

/**
 * Xenova/multilingual-e5-small: transformers.js's own ONNX conversion of intfloat/multilingual-e5-small (same weights and
 * tokenizer), at a pinned revision. Its `onnx/model_quantized.onnx` is the int8 file transformers.js loads for dtype q8;
 * the model repository's own int8 file (`onnx/model_qint8_avx512_vnni.onnx`) is quantized for AVX512-VNNI, and such
 * exports can saturate on x86 CPUs without VNNI and give silently different vectors
 * (https://github.com/microsoft/onnxruntime/issues/14642).
 */
const E5_REVISION = '761b726dd34fb83930e26aab4e9ac3899aa1fa78';

/** intfloat/multilingual-e5-small (MIT): 384 dimensions, 100 languages, 512 tokens, transformers.js int8 export. */
export const MULTILINGUAL_E5_SMALL: KnownModel = {
  id: 'multilingual-e5-small',
  base: `https://huggingface.co/Xenova/multilingual-e5-small/resolve/${E5_REVISION}`,
  dtype: 'q8',
  pooling: 'mean',
  dimension: 384,
  // Sources (found with the library search tool; not re-checked against the files here, no access to the model host):
  // the same size and SHA-256 of onnx/model_quantized.onnx at this revision are pinned by several independent public
  // projects (a TypeScript model table, a C# downloader using this revision's resolve URL, a Rust model registry); the
  // SHA-256 and its 112.83 MiB also appear in github.com/ergosumx/tokenx,
  // examples/.models/multilingual-e5-small/VALIDATION_REPORT.json. tokenizer.json is the same file (size and SHA-256) as
  // the model repository's onnx/tokenizer.json pinned before.
  sumsSource:
    'sizes and SHA-256 of Xenova/multilingual-e5-small at revision 761b726d as pinned by several independent public projects ' +
    '(found with the library search tool; the model file\'s SHA-256 also in ergosumx/tokenx VALIDATION_REPORT.json); ' +
    'not re-checked against the files here (no access to the model host)',
  files: [
    {
      path: 'onnx/model_quantized.onnx',
      source: 'onnx/model_quantized.onnx',
      size: 118_308_185,
      sha256: 'f80102d3f2a1229f387d3c81909990d8945513e347b0eab049f7de3c6f98c193',
    },
    {
      path: 'tokenizer.json',
      source: 'tokenizer.json',
      size: 17_082_730,
      sha256: '0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39',
    },
    {
      path: 'config.json',
      inline: JSON.stringify({
        architectures: ['BertModel'],
        model_type: 'bert',
        hidden_size: 384,
        num_hidden_layers: 12,
        num_attention_heads: 12,
        intermediate_size: 1536,
        max_position_embeddings: 512,
        vocab_size: 250037,
        type_vocab_size: 2,
        pad_token_id: 0,
      }),
    },
    {
      path: 'tokenizer_config.json',
      inline: JSON.stringify({
        tokenizer_class: 'XLMRobertaTokenizer',
        model_max_length: 512,
        bos_token: '<s>',
        eos_token: '</s>',
        cls_token: '<s>',
        sep_token: '</s>',
        pad_token: '<pad>',
        unk_token: '<unk>',
        mask_token: '<mask>',
      }),
    },
  ],
};

export const KNOWN_MODELS: KnownModel[] = [MULTILINGUAL_E5_SMALL];

/**
 * Extra known models for the extension tests only: a JSON array of KnownModel in this environment variable (the
 * real-VS-Code runner sets it to the tiny generated model, so the download offer can be tested against a local server
 * with sums that match). Entries never replace a built-in model of the same id.
 */
export const TEST_KNOWN_MODELS_ENV = 'DOCS_RAG_TEST_KNOWN_MODELS';

let testModels: { raw: string; models: KnownModel[] } | undefined;

function testKnownModels(): KnownModel[] {
  const raw = process.env[TEST_KNOWN_MODELS_ENV];
  if (!raw) return [];
  if (testModels?.raw !== raw) {
    let models: KnownModel[] = [];
    try {
      const parsed: unknown = JSON.parse(raw);
      if (Array.isArray(parsed)) models = parsed.filter((m): m is KnownModel => !!m && typeof m.id === 'string' && typeof m.base === 'string' && Array.isArray(m.files));
    } catch {
      // not JSON: no extra models
    }
    testModels = { raw, models };
  }
  return testModels.models;
}

export function knownModel(id: string): KnownModel | undefined {
  return KNOWN_MODELS.find((m) => m.id === id) ?? testKnownModels().find((m) => m.id === id);
}

/**
 * The download base of a model on a mirror: `host` (e.g. `https://hf-mirror.example` or a local server) replaces the
 * scheme, host and port of the model's base and keeps its path (`/<owner>/<repo>/resolve/<revision>`), the layout
 * Hugging Face mirrors serve. The pinned sizes and SHA-256 still decide what is accepted. Empty: the model's own base.
 */
export function modelDownloadBase(model: KnownModel, host?: string): string {
  const mirror = host?.trim().replace(/\/+$/, '');
  if (!mirror) return model.base;
  return `${mirror}${new URL(model.base).pathname}`.replace(/\/+$/, '');
}

/** Bytes to download for a model (the inline files are written, not fetched). */
export function downloadSize(model: KnownModel): number {
  return model.files.reduce((s, f) => s + (f.size ?? 0), 0);
}
