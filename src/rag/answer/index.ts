// Public surface of the answer stage for the extension's engine bundle (the CLI and the evaluation import the modules).
export { answerQuestion, selectSources, type AnswerOptions } from './answer';
export type { AgenticOptions, AgenticResult } from './agentic';
export type { SupportReport } from './support';
export type { ToolContext } from './tools';
export type { AnswerMode, AnswerResult, Citation, NumberedSource, SentenceCheck } from './types';
