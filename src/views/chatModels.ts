// Picks the chat model for the Docs view and the "Ask…" command from `docsRag.chatModel`; none in Restricted Mode.
import * as vscode from 'vscode';
import type { ChatModel } from '../rag/types';
import { loadEngineModules } from './engineModules';
import { errorMessage, type Log } from './log';
import { readSettings } from './settings';
import { pickVscodeModel, VscodeChatModel } from './vscodeChatModel';

export interface ChosenModel {
  model?: ChatModel;
  /** Why there is no model (shown with the extractive answer). */
  note?: string;
}

export const RESTRICTED_NOTE =
  'Restricted Mode: this workspace is not trusted, so Docs RAG sends nothing to any language model. The answer quotes the most relevant passages. Trust the workspace to get generated answers.';

export async function chooseChatModel(log: Log, token?: vscode.CancellationToken): Promise<ChosenModel> {
  if (!vscode.workspace.isTrusted) return { note: RESTRICTED_NOTE };
  const s = readSettings();
  if (s.chatModel === 'ollama') {
    const { OllamaChatModel } = (await loadEngineModules()).ollamaChat;
    const model = new OllamaChatModel({ model: s.ollamaChatModel, host: s.ollamaHost });
    try {
      await model.init();
      return { model };
    } catch (err) {
      log.warn(`Ollama chat model unavailable: ${errorMessage(err)}`);
      return { note: errorMessage(err) };
    }
  }
  const picked = await pickVscodeModel();
  if (!picked) {
    return { note: 'No VS Code language model is available (for example GitHub Copilot). Set docsRag.chatModel to "ollama" to use a local model.' };
  }
  return { model: new VscodeChatModel(picked, token) };
}
