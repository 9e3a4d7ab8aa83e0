// `ChatModel` adapter for a VS Code language model (`vscode.LanguageModelChat`), e.g. the model picked in the chat.
import * as vscode from 'vscode';
import type { ChatMessage, ChatModel, ChatOptions, ChatResponse, ModelError, ToolCall } from '../rag/types';
import { loadEngineModules } from './engineModules';

type ModelErrorKind = ModelError['kind'];
/** Errors are built with the engine bundle's ModelError class, so the answer stage recognises them (instanceof). */
type MakeError = (kind: ModelErrorKind, message: string) => ModelError;

/** VS Code's stable API has no system role: system text goes first, as a user message marked as instructions. */
export function toVscodeMessages(messages: ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        out.push(vscode.LanguageModelChatMessage.User(`<instructions>\n${m.content}\n</instructions>`));
        break;
      case 'user':
        out.push(vscode.LanguageModelChatMessage.User(m.content));
        break;
      case 'assistant': {
        const calls = (m.toolCalls ?? []).map((c) => `\n[called tool ${c.name} with ${JSON.stringify(c.arguments)}]`).join('');
        out.push(vscode.LanguageModelChatMessage.Assistant(m.content + calls));
        break;
      }
      case 'tool':
        out.push(vscode.LanguageModelChatMessage.User(`Result of tool ${m.toolName ?? ''}:\n${m.content}`));
        break;
    }
  }
  return out;
}

function toModelError(err: unknown, model: vscode.LanguageModelChat, make: MakeError): ModelError {
  if (err instanceof Error && err.name === 'ModelError') return err as ModelError;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof vscode.LanguageModelError) {
    if (err.code === vscode.LanguageModelError.NoPermissions.name) {
      return make('other', `VS Code did not allow Docs RAG to use "${model.name}": ${message}. Allow it when VS Code asks, or set docsRag.chatModel to "ollama".`);
    }
    if (err.code === vscode.LanguageModelError.NotFound.name) {
      return make('model-missing', `The language model "${model.name}" is not available any more: ${message}. Pick another model in the chat.`);
    }
    if (err.code === vscode.LanguageModelError.Blocked.name) {
      return make('other', `The language model "${model.name}" blocked the request: ${message}. Try again later.`);
    }
  }
  if (/token|context|too (long|large)/i.test(message)) {
    return make('context-overflow', `The prompt is too long for "${model.name}" (${model.maxInputTokens} input tokens): ${message}`);
  }
  return make('other', `The language model "${model.name}" failed: ${message}`);
}

export class VscodeChatModel implements ChatModel {
  readonly id: string;
  readonly contextWindow: number;

  constructor(
    private readonly model: vscode.LanguageModelChat,
    private readonly token?: vscode.CancellationToken,
  ) {
    this.id = `vscode:${model.vendor}/${model.id}`;
    this.contextWindow = model.maxInputTokens;
  }

  /** The model's own tokenizer, so the token budget counts instead of estimating. */
  async countTokens(text: string, signal?: AbortSignal): Promise<number> {
    const cts = new vscode.CancellationTokenSource();
    const abort = () => cts.cancel();
    signal?.addEventListener('abort', abort, { once: true });
    const outer = this.token?.onCancellationRequested(abort);
    try {
      return await this.model.countTokens(text, cts.token);
    } finally {
      signal?.removeEventListener('abort', abort);
      outer?.dispose();
      cts.dispose();
    }
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResponse> {
    const { types } = await loadEngineModules();
    const make: MakeError = (kind, message) => new types.ModelError(kind, message);
    const cts = new vscode.CancellationTokenSource();
    const abort = () => cts.cancel();
    options.signal?.addEventListener('abort', abort, { once: true });
    const outer = this.token?.onCancellationRequested(abort);
    if (options.signal?.aborted || this.token?.isCancellationRequested) cts.cancel();
    try {
      if (cts.token.isCancellationRequested) throw make('cancelled', 'The request was cancelled.');
      const requestOptions: vscode.LanguageModelChatRequestOptions = {
        justification: vscode.l10n.t('Docs RAG answers your question from the documents in your workspace.'),
      };
      if (options.tools?.length) {
        requestOptions.tools = options.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
      }
      const response = await this.model.sendRequest(toVscodeMessages(messages), requestOptions, cts.token);
      let text = '';
      const toolCalls: ToolCall[] = [];
      for await (const part of response.stream) {
        if (cts.token.isCancellationRequested) throw make('cancelled', 'The request was cancelled.');
        if (part instanceof vscode.LanguageModelTextPart) {
          text += part.value;
          options.onToken?.(part.value);
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          toolCalls.push({ name: part.name, arguments: (part.input ?? {}) as Record<string, unknown> });
        }
      }
      return { text, toolCalls };
    } catch (err) {
      if (cts.token.isCancellationRequested) throw make('cancelled', 'The request was cancelled.');
      throw toModelError(err, this.model, make);
    } finally {
      options.signal?.removeEventListener('abort', abort);
      outer?.dispose();
      cts.dispose();
    }
  }
}

/** The first available VS Code language model (the chat's default vendor first), or undefined. */
export async function pickVscodeModel(): Promise<vscode.LanguageModelChat | undefined> {
  try {
    const models = await vscode.lm.selectChatModels();
    return models.find((m) => m.vendor === 'copilot') ?? models[0];
  } catch {
    return undefined;
  }
}
