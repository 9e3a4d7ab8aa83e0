// Public surface of the answer stage (used by the CLI, the extension and the evaluation).
export { answerQuestion, selectSources, type AnswerOptions } from './answer';
export { agenticAnswer, type AgenticOptions, type AgenticResult } from './agentic';
export { citationJson, citedNumbers, formatLocation, resolveCitations, stripUnknownCitations, toCitation } from './citations';
export { extractiveAnswer, extractiveHeader } from './extractive';
export {
  checkQuestion,
  detectInjection,
  lowSupportDisclaimer,
  MAX_QUESTION_CHARS,
  MIN_QUESTION_CHARS,
  QuestionError,
  redactSecrets,
  StreamRedactor,
} from './guardrails';
export { buildAnswerMessages } from './prompts';
export { checkSupport, type SupportReport } from './support';
export { AGENT_TOOLS, KEYWORD_SEARCH, READ_CHUNK, SEMANTIC_SEARCH, ToolRunner, type ToolContext } from './tools';
export type { AnswerMode, AnswerResult, Citation, NumberedSource, SentenceCheck } from './types';
