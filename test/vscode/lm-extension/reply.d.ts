// Types of reply.js (plain JS so the test-only extension needs no build step).
export interface Source {
  n: number;
  text: string;
}
export interface Message {
  role: string;
  text: string;
}
export function parseSources(prompt: string): Source[];
export function firstSentence(text: string): string;
export function wantsJson(prompt: string, modelOptions: Record<string, unknown> | undefined): boolean;
export function jsonReply(prompt: string, lastUser: string, override: unknown): string;
export function replyFor(messages: Message[], options?: { modelOptions?: Record<string, unknown>; jsonOverride?: unknown; translations?: Record<string, string> }): string;
export function translationReply(question: string, translations: Record<string, string> | undefined): string;
export function streamParts(text: string): string[];
export function answerFromSources(sources: Source[]): string;
export function questionOf(text: string): string;
