// Models the `local` embedder can download by name, each file pinned by size and SHA-256, laid out as a
// transformers.js model folder (config.json, tokenizer.json, tokenizer_config.json, onnx/model[_quantized].onnx).
// Small JSON files that the upstream repository lacks or whose sums could not be pinned are written from here
// (`inline`): they only name the architecture for transformers.js; the weights and the tokenizer are downloaded.
//
// Where the sums come from is said per model (EVALUATION.md, "Local embedding model"): never invented.

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

const E5_REVISION = '614241f622f53c4eeff9890bdc4f31cfecc418b3';

/** intfloat/multilingual-e5-small (MIT): 384 dimensions, 100 languages, 512 tokens, int8 ONNX export of the model repo. */
export const MULTILINGUAL_E5_SMALL: KnownModel = {
  id: 'multilingual-e5-small',
  base: `https://huggingface.co/intfloat/multilingual-e5-small/resolve/${E5_REVISION}`,
  dtype: 'q8',
  pooling: 'mean',
  dimension: 384,
  sumsSource:
    'sizes and SHA-256 of intfloat/multilingual-e5-small at revision 614241f6 as pinned by two independent public projects ' +
    '(found with the library search tool); not re-checked against the files here (no access to the model host)',
  files: [
    {
      path: 'onnx/model_quantized.onnx',
      source: 'onnx/model_qint8_avx512_vnni.onnx',
      size: 118_346_824,
      sha256: 'dd476dd0c2514e9b9be83aeb3853fac0763e0bdf4a71645407587d77c48a2d88',
    },
    {
      path: 'tokenizer.json',
      source: 'onnx/tokenizer.json',
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

export function knownModel(id: string): KnownModel | undefined {
  return KNOWN_MODELS.find((m) => m.id === id);
}

/** Bytes to download for a model (the inline files are written, not fetched). */
export function downloadSize(model: KnownModel): number {
  return model.files.reduce((s, f) => s + (f.size ?? 0), 0);
}
