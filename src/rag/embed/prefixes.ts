// Task prefixes that some embedding models need to tell a search query from a document. Without them
// retrieval quality drops noticeably (nomic-embed-text's model card: "requires task instruction prefixes").
// Models not listed (bge-m3, all-minilm, granite-embedding...) take plain text.

export interface TaskPrefixes {
  query: string;
  document: string;
}

const NONE: TaskPrefixes = { query: '', document: '' };
const RETRIEVAL_INSTRUCTION = 'Represent this sentence for searching relevant passages: ';

/** Known prefixes by model family (matched on the model name without registry namespace or tag). */
const KNOWN: { match: RegExp; prefixes: TaskPrefixes }[] = [
  { match: /^nomic-embed-text/, prefixes: { query: 'search_query: ', document: 'search_document: ' } },
  { match: /^mxbai-embed-large/, prefixes: { query: RETRIEVAL_INSTRUCTION, document: '' } },
  { match: /^snowflake-arctic-embed2/, prefixes: { query: 'query: ', document: '' } },
  { match: /^snowflake-arctic-embed(?!2)/, prefixes: { query: RETRIEVAL_INSTRUCTION, document: '' } },
  { match: /^embeddinggemma/, prefixes: { query: 'task: search result | query: ', document: 'title: none | text: ' } },
  {
    match: /^qwen3-embedding/,
    prefixes: { query: 'Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:', document: '' },
  },
  { match: /(^|[-_])e5([-_]|$)/, prefixes: { query: 'query: ', document: 'passage: ' } },
];

/** The prefixes for an Ollama model name such as "nomic-embed-text:latest" or "user/multilingual-e5-large". */
export function taskPrefixes(model: string): TaskPrefixes {
  const base = (model.split('/').pop() ?? model).split(':')[0].toLowerCase();
  return KNOWN.find((k) => k.match.test(base))?.prefixes ?? NONE;
}
