// Agentic answer mode: a tool-capable model calls keyword_search / semantic_search / read_chunk for a bounded
// number of rounds, then answers with [n] citations to the passages the tools returned.
import type { ChatMessage, ChatModel, Lang, Passage } from '../types';
import { estimateTokens } from '../llm/tokens';
import { agenticFinalPrompt, agenticSystemPrompt } from './prompts';
import { AGENT_TOOLS, ToolRunner, type ToolContext } from './tools';
import type { NumberedSource } from './types';

export interface AgenticOptions {
  lang: Lang;
  /** Rounds of tool calls before the model must answer (default 4). */
  maxRounds?: number;
  /** Passages found by the normal retrieval, shown up front (the model may search further). */
  initial?: Passage[];
  answerTokens?: number;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
}

export interface AgenticResult {
  text: string;
  sources: NumberedSource[];
  rounds: number;
  toolCalls: Record<string, number>;
}

export async function agenticAnswer(question: string, model: ChatModel, tools: ToolContext, opts: AgenticOptions): Promise<AgenticResult> {
  const maxRounds = Math.max(1, opts.maxRounds ?? 4);
  const runner = new ToolRunner(tools);
  const initial = opts.initial?.length ? `\n\nFirst search results:\n<sources>\n${runner.render(opts.initial)}\n</sources>` : '';
  const messages: ChatMessage[] = [
    { role: 'system', content: agenticSystemPrompt(opts.lang, maxRounds) },
    { role: 'user', content: `Question: ${question}${initial}` },
  ];
  const budget = model.contextWindow - (opts.answerTokens ?? 1024);
  let rounds = 0;
  let final: string | undefined;
  while (rounds < maxRounds) {
    // Tool-call rounds are not streamed: their text is the model's working, not the answer.
    const res = await model.chat(messages, { tools: AGENT_TOOLS, signal: opts.signal });
    rounds++;
    if (res.toolCalls.length === 0) {
      final = res.text;
      opts.onToken?.(res.text);
      break;
    }
    messages.push({ role: 'assistant', content: res.text, toolCalls: res.toolCalls });
    for (const call of res.toolCalls) {
      messages.push({ role: 'tool', toolName: call.name, content: await runner.run(call) });
    }
    if (estimateTokens(messages.map((m) => m.content).join('\n')) > budget) break;
  }
  if (final === undefined) {
    messages.push({ role: 'user', content: agenticFinalPrompt() });
    const res = await model.chat(messages, { signal: opts.signal, onToken: opts.onToken });
    final = res.text;
  }
  return { text: final, sources: runner.sources, rounds, toolCalls: runner.calls };
}
