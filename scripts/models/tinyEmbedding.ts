// Writes a tiny embedding model in the layout of a Hugging Face transformers.js model folder, so tests run the local
// embedder through exactly the code a real model uses, without downloading anything:
//   config.json             BERT config (model_type "bert", hidden_size = dim)
//   tokenizer.json          WordPiece tokenizer (BERT normaliser and pre-tokeniser, [CLS] … [SEP] template)
//   tokenizer_config.json   BertTokenizer, lower case
//   onnx/model.onnx         ONNX graph: last_hidden_state = Gather(embedding table, input_ids) * attention_mask
//   (--quantized: onnx/model_quantized.onnx instead, int8 weights in the layout of onnxruntime's dynamic quantisation,
//   which is what a real model's q8 export looks like: the table as uint8 + DequantizeLinear after the Gather, every
//   MatMul with a weight as DynamicQuantizeLinear → MatMulInteger → Cast → Mul by the two scales. Same seed, same
//   weights rounded; the local embedder then loads it with dtype q8, as it loads multilingual-e5-small.)
// The vocabulary is single characters (and their "##" continuations), the table seeded pseudo-random numbers: the
// vectors carry a bag-of-characters signal, nothing semantic. Same options → same bytes (the test checks the checked-in
// copy against a fresh one).
//
//   node --import tsx scripts/models/tinyEmbedding.ts [outDir] [--dim 32] [--extra-vocab N] [--layers L --heads H --intermediate I] [--subwords] [--quantized]
// --extra-vocab adds N filler tokens (table rows) to reach a real model's vocabulary size for speed measurements.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onnx } from 'onnx-proto';

export interface TinyModelOptions {
  dim?: number;
  /**
   * Transformer encoder layers with random weights after the lookup (BERT shape: self-attention with `heads` heads,
   * feed-forward of `intermediate`, post-layer-norm). 0 (default): the lookup alone. For speed measurements of a
   * real model's shape (multilingual-e5-small: --layers 12 --dim 384 --heads 12 --intermediate 1536).
   */
  layers?: number;
  heads?: number;
  intermediate?: number;
  /** Filler rows after the real vocabulary (never produced by the tokenizer; only make the table as large as a real one). */
  extraVocab?: number;
  seed?: number;
  /**
   * Also every two- and three-letter piece (and its "##" continuation) in the vocabulary, so WordPiece cuts words into
   * pieces of up to three letters: about as many tokens per text as a real multilingual tokenizer makes, instead of one
   * per character (sequence length decides an encoder's activation memory and time). Counts towards extraVocab.
   */
  subwords?: boolean;
  /** Write onnx/model_quantized.onnx (int8 weights, dynamic quantisation) instead of onnx/model.onnx. */
  quantized?: boolean;
}

export const TINY_MODEL_DIR = path.join(__dirname, '../../test/fixtures/models/tiny-embedding');

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789äöüßéèàç', ...'.,;:!?-()§/"\'%&+*=_#@[]{}<>'];

function vocabulary(subwords = false): string[] {
  const letters = CHARS.filter((c) => /[\p{L}\p{N}]/u.test(c));
  const base = [...SPECIAL, ...CHARS, ...letters.map((c) => `##${c}`)];
  if (!subwords) return base;
  const alpha = letters.filter((c) => /\p{L}/u.test(c));
  const pieces: string[] = [];
  for (const a of alpha) for (const b of alpha) pieces.push(a + b);
  for (const ab of pieces.slice()) for (const c of alpha) pieces.push(ab + c);
  return [...base, ...pieces, ...pieces.map((p) => `##${p}`)];
}

/** mulberry32: a small seeded PRNG, so the table is the same on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function json(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
}

interface Shape {
  layers: number;
  heads: number;
  intermediate: number;
  quantized: boolean;
}

function floats(n: number, random: () => number, scale: number, offset = 0): Buffer {
  const b = Buffer.alloc(n * 4);
  for (let i = 0; i < n; i++) b.writeFloatLE(offset + (random() * 2 - 1) * scale, i * 4);
  return b;
}

/**
 * Per-tensor linear quantisation of float32 values (as onnxruntime's quantize_dynamic does it): int8 symmetric
 * (zero point 0) for MatMul weights, uint8 asymmetric for a Gather's table. Returns the bytes, scale and zero point.
 */
function quantize(values: Buffer, signed: boolean): { data: Buffer; scale: number; zeroPoint: number } {
  const f = new Float32Array(values.buffer, values.byteOffset, values.length / 4);
  let min = 0;
  let max = 0;
  for (const v of f) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const out = Buffer.alloc(f.length);
  if (signed) {
    const scale = Math.max(-min, max) / 127 || 1;
    for (let i = 0; i < f.length; i++) out.writeInt8(Math.max(-127, Math.min(127, Math.round(f[i] / scale))), i);
    return { data: out, scale, zeroPoint: 0 };
  }
  const scale = (max - min) / 255 || 1;
  const zeroPoint = Math.max(0, Math.min(255, Math.round(-min / scale)));
  for (let i = 0; i < f.length; i++) out[i] = Math.max(0, Math.min(255, Math.round(f[i] / scale) + zeroPoint));
  return { data: out, scale, zeroPoint };
}

/** BERT encoder layers on `hidden` ([B,S,D]); returns the name of the last layer's output. */
function encoderLayers(graph: onnx.IGraphProto, hidden: string, dim: number, shape: Shape, random: () => number): string {
  const { TensorProto } = onnx;
  const F = TensorProto.DataType.FLOAT;
  const I64 = TensorProto.DataType.INT64;
  const init = (name: string, dims: number[], data: Buffer, dataType: number = F) => graph.initializer!.push({ name, dataType, dims, rawData: data });
  const ints = (values: number[]) => {
    const b = Buffer.alloc(values.length * 8);
    values.forEach((v, i) => b.writeBigInt64LE(BigInt(v), i * 8));
    return b;
  };
  const node = (opType: string, input: string[], output: string, attribute: onnx.IAttributeProto[] = []) =>
    graph.node!.push({ opType, input, output: [output], name: output, attribute });
  const hd = dim / shape.heads;
  init('split_heads', [4], ints([0, 0, shape.heads, hd]), I64);
  init('merge_heads', [3], ints([0, 0, dim]), I64);
  init('scale', [], floats(1, () => 0, 0, 1 / Math.sqrt(hd)));
  init('half', [], floats(1, () => 0, 0, 0.5));
  init('one', [], floats(1, () => 0, 0, 1));
  init('inv_sqrt2', [], floats(1, () => 0, 0, Math.SQRT1_2));
  init('neg_big', [], floats(1, () => 0, 0, -10000));
  init('mask_axes', [2], ints([1, 2]), I64);
  // Attention bias from the mask: (1 - mask) * -10000, shape [B,1,1,S].
  node('Unsqueeze', ['mask_float', 'mask_axes'], 'mask_4d');
  node('Sub', ['one', 'mask_4d'], 'mask_inv');
  node('Mul', ['mask_inv', 'neg_big'], 'mask_bias');
  const ln = (x: string, prefix: string) => {
    init(`${prefix}.gamma`, [dim], floats(dim, random, 0.05, 1));
    init(`${prefix}.beta`, [dim], floats(dim, random, 0.05));
    node('LayerNormalization', [x, `${prefix}.gamma`, `${prefix}.beta`], `${prefix}.out`, [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: -1 }]);
    return `${prefix}.out`;
  };
  const linear = (x: string, prefix: string, inDim: number, outDim: number) => {
    const weight = floats(inDim * outDim, random, 1 / Math.sqrt(inDim));
    init(`${prefix}.bias`, [outDim], floats(outDim, random, 0.02));
    if (!shape.quantized) {
      init(`${prefix}.weight`, [inDim, outDim], weight);
      node('MatMul', [x, `${prefix}.weight`], `${prefix}.mm`);
    } else {
      // x → uint8 with its own scale and zero point per call; W int8 per tensor; int32 product scaled back to float.
      const q = quantize(weight, true);
      init(`${prefix}.weight_quantized`, [inDim, outDim], q.data, TensorProto.DataType.INT8);
      init(`${prefix}.weight_scale`, [], floats(1, () => 0, 0, q.scale));
      init(`${prefix}.weight_zero_point`, [], Buffer.from([0]), TensorProto.DataType.INT8);
      graph.node!.push({ opType: 'DynamicQuantizeLinear', input: [x], output: [`${prefix}.x_q`, `${prefix}.x_scale`, `${prefix}.x_zp`], name: `${prefix}.x_quantize` });
      node('MatMulInteger', [`${prefix}.x_q`, `${prefix}.weight_quantized`, `${prefix}.x_zp`, `${prefix}.weight_zero_point`], `${prefix}.mm_int`);
      node('Cast', [`${prefix}.mm_int`], `${prefix}.mm_float`, [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: F }]);
      node('Mul', [`${prefix}.x_scale`, `${prefix}.weight_scale`], `${prefix}.scale`);
      node('Mul', [`${prefix}.mm_float`, `${prefix}.scale`], `${prefix}.mm`);
    }
    node('Add', [`${prefix}.mm`, `${prefix}.bias`], `${prefix}.out`);
    return `${prefix}.out`;
  };
  const perm = (p: number[]) => [{ name: 'perm', type: onnx.AttributeProto.AttributeType.INTS, ints: p }];
  let x = ln(hidden, 'embeddings.LayerNorm');
  for (let l = 0; l < shape.layers; l++) {
    const p = `layer.${l}`;
    const heads = (name: string, order: number[]) => {
      node('Reshape', [linear(x, `${p}.${name}`, dim, dim), 'split_heads'], `${p}.${name}.split`);
      node('Transpose', [`${p}.${name}.split`], `${p}.${name}.heads`, perm(order));
      return `${p}.${name}.heads`;
    };
    const q = heads('query', [0, 2, 1, 3]);
    const k = heads('key', [0, 2, 3, 1]);
    const v = heads('value', [0, 2, 1, 3]);
    node('MatMul', [q, k], `${p}.scores`);
    node('Mul', [`${p}.scores`, 'scale'], `${p}.scaled`);
    node('Add', [`${p}.scaled`, 'mask_bias'], `${p}.masked`);
    node('Softmax', [`${p}.masked`], `${p}.probs`, [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: -1 }]);
    node('MatMul', [`${p}.probs`, v], `${p}.context`);
    node('Transpose', [`${p}.context`], `${p}.context.t`, perm([0, 2, 1, 3]));
    node('Reshape', [`${p}.context.t`, 'merge_heads'], `${p}.context.merged`);
    node('Add', [x, linear(`${p}.context.merged`, `${p}.attention.output`, dim, dim)], `${p}.residual1`);
    const x1 = ln(`${p}.residual1`, `${p}.attention.LayerNorm`);
    const up = linear(x1, `${p}.intermediate`, dim, shape.intermediate);
    // GELU(x) = 0.5 x (1 + erf(x / sqrt 2))
    node('Mul', [up, 'inv_sqrt2'], `${p}.gelu.scaled`);
    node('Erf', [`${p}.gelu.scaled`], `${p}.gelu.erf`);
    node('Add', [`${p}.gelu.erf`, 'one'], `${p}.gelu.plus1`);
    node('Mul', [up, `${p}.gelu.plus1`], `${p}.gelu.prod`);
    node('Mul', [`${p}.gelu.prod`, 'half'], `${p}.gelu.out`);
    node('Add', [x1, linear(`${p}.gelu.out`, `${p}.output`, shape.intermediate, dim)], `${p}.residual2`);
    x = ln(`${p}.residual2`, `${p}.output.LayerNorm`);
  }
  return x;
}

function onnxModel(vocabSize: number, dim: number, seed: number, shape: Shape): Buffer {
  const random = prng(seed);
  const table = floats(vocabSize * dim, random, 1);
  const axes = Buffer.alloc(8);
  axes.writeBigInt64LE(-1n);
  const { TensorProto } = onnx;
  const dims = (...names: string[]) => ({ dim: names.map((n) => ({ dimParam: n })) });
  const int64Input = (name: string) => ({
    name,
    type: { tensorType: { elemType: TensorProto.DataType.INT64, shape: dims('batch_size', 'sequence_length') } },
  });
  const lookupAxis = [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }];
  // The table as float32, or (quantized) as uint8 dequantized after the lookup: only the looked-up rows become floats.
  const q = shape.quantized ? quantize(table, false) : null;
  const lookup: onnx.INodeProto[] = q
    ? [
        { opType: 'Gather', input: ['embeddings.word_embeddings.weight_quantized', 'input_ids'], output: ['token_vectors_q'], name: 'lookup', attribute: lookupAxis },
        { opType: 'DequantizeLinear', input: ['token_vectors_q', 'embeddings.word_embeddings.weight_scale', 'embeddings.word_embeddings.weight_zero_point'], output: ['token_vectors'], name: 'lookup_dequantize' },
      ]
    : [{ opType: 'Gather', input: ['embeddings.word_embeddings.weight', 'input_ids'], output: ['token_vectors'], name: 'lookup', attribute: lookupAxis }];
  const scalar = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    return b;
  };
  const graph: onnx.IGraphProto = {
    name: 'tiny-embedding',
    initializer: [
      ...(q
        ? [
            { name: 'embeddings.word_embeddings.weight_quantized', dataType: TensorProto.DataType.UINT8, dims: [vocabSize, dim], rawData: q.data },
            { name: 'embeddings.word_embeddings.weight_scale', dataType: TensorProto.DataType.FLOAT, dims: [], rawData: scalar(q.scale) },
            { name: 'embeddings.word_embeddings.weight_zero_point', dataType: TensorProto.DataType.UINT8, dims: [], rawData: Buffer.from([q.zeroPoint]) },
          ]
        : [{ name: 'embeddings.word_embeddings.weight', dataType: TensorProto.DataType.FLOAT, dims: [vocabSize, dim], rawData: table }]),
      { name: 'last_axis', dataType: TensorProto.DataType.INT64, dims: [1], rawData: axes },
    ],
    input: [int64Input('input_ids'), int64Input('attention_mask')],
    output: [
      {
        name: 'last_hidden_state',
        type: { tensorType: { elemType: TensorProto.DataType.FLOAT, shape: { dim: [{ dimParam: 'batch_size' }, { dimParam: 'sequence_length' }, { dimValue: dim }] } } },
      },
    ],
    node: [
      ...lookup,
      { opType: 'Cast', input: ['attention_mask'], output: ['mask_float'], name: 'mask_cast', attribute: [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: TensorProto.DataType.FLOAT }] },
      { opType: 'Unsqueeze', input: ['mask_float', 'last_axis'], output: ['mask_3d'], name: 'mask_unsqueeze' },
      { opType: 'Mul', input: ['token_vectors', 'mask_3d'], output: [shape.layers > 0 ? 'masked_embeddings' : 'last_hidden_state'], name: 'mask_apply' },
    ],
  };
  if (shape.layers > 0) {
    const out = encoderLayers(graph, 'masked_embeddings', dim, shape, random);
    graph.node!.push({ opType: 'Identity', input: [out], output: ['last_hidden_state'], name: 'output' });
  }
  const model: onnx.IModelProto = {
    irVersion: 8,
    producerName: 'docs-rag scripts/models/tinyEmbedding.ts',
    opsetImport: [{ domain: '', version: 17 }],
    graph,
  };
  return Buffer.from(onnx.ModelProto.encode(onnx.ModelProto.fromObject(model)).finish());
}

/** The model's files by relative path. */
export function tinyEmbeddingFiles(options: TinyModelOptions = {}): Map<string, Buffer> {
  const dim = options.dim ?? 32;
  const vocab = vocabulary(options.subwords);
  const vocabSize = Math.max(vocab.length, vocabulary().length + (options.extraVocab ?? 0));
  const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
  const special = (t: string) => ({ id: ids[t], content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [ids['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [ids['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
  const config = {
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: dim,
    vocab_size: vocabSize,
    num_hidden_layers: options.layers ?? 0,
    num_attention_heads: options.heads ?? 1,
    max_position_embeddings: 512,
    type_vocab_size: 2,
    pad_token_id: 0,
  };
  const tokenizerConfig = {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: 512,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[MASK]',
  };
  return new Map([
    ['config.json', json(config)],
    ['tokenizer.json', json(tokenizer)],
    ['tokenizer_config.json', json(tokenizerConfig)],
    [
      options.quantized ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx',
      onnxModel(vocabSize, dim, options.seed ?? 42, { layers: options.layers ?? 0, heads: options.heads ?? 1, intermediate: options.intermediate ?? 4 * dim, quantized: !!options.quantized }),
    ],
  ]);
}

export function writeTinyEmbedding(outDir: string, options: TinyModelOptions = {}): void {
  for (const [rel, bytes] of tinyEmbeddingFiles(options)) {
    fs.mkdirSync(path.dirname(path.join(outDir, rel)), { recursive: true });
    fs.writeFileSync(path.join(outDir, rel), bytes);
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : undefined;
  };
  const out = args[0] && !args[0].startsWith('--') ? path.resolve(args[0]) : TINY_MODEL_DIR;
  writeTinyEmbedding(out, {
    dim: opt('--dim'),
    extraVocab: opt('--extra-vocab'),
    subwords: args.includes('--subwords'),
    layers: opt('--layers'),
    heads: opt('--heads'),
    intermediate: opt('--intermediate'),
    quantized: args.includes('--quantized'),
  });
  console.log(`wrote ${out}`);
}
