// @ts-nocheck — uses the stable LanguageModelChatProvider API (VS Code 1.104+), newer than the repo's @types/vscode.
// TEST ONLY. Registers a deterministic language model under the vendor "copilot" (VS Code's default-model
// lookup checks that vendor), so `vscode.lm.selectChatModels()` and a chat participant's `request.model` work
// without GitHub Copilot or any network. The replies come from ./reply.js:
//   - prompt with numbered sources (<source n="k" ...>text</source> or "[k] ..." blocks) → for each source its
//     first sentence followed by " [k]", one per line;
//   - the search's translation request → the translation set with `docsRagTestLm.setTranslations` ({question:
//     translation}), else the question unchanged;
//   - JSON requested (model option json/format, or "JSON" in the instructions) → valid JSON (see reply.js);
//   - otherwise "Test model reply: <first sentence of the last user message>".
// Replies stream word by word. Every request is recorded; tests read them with the command
// `docsRagTestLm.getRequests` (→ [{messages:[{role,text}], modelOptions, reply, modelId}]).
'use strict';

const vscode = require('vscode');
const { replyFor, streamParts } = require('./reply.js');

const MAX_RECORDED = 100;

function roleName(role) {
  switch (role) {
    case vscode.LanguageModelChatMessageRole.User:
      return 'user';
    case vscode.LanguageModelChatMessageRole.Assistant:
      return 'assistant';
    default:
      return role === 3 ? 'system' : String(role);
  }
}

function messageText(message) {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      if (part instanceof vscode.LanguageModelTextPart) return part.value;
      if (part && typeof part.value === 'string') return part.value;
      if (part instanceof vscode.LanguageModelToolResultPart) {
        return (part.content || []).map((c) => (c && typeof c.value === 'string' ? c.value : '')).join('');
      }
      return '';
    })
    .join('');
}

function activate(context) {
  const maxInputTokens = Number(process.env.DOCS_RAG_TEST_LM_MAX_INPUT_TOKENS || 16000);
  const info = {
    id: 'docs-rag-test-model',
    name: 'Docs RAG Test Model',
    family: 'docs-rag-test',
    version: '1',
    tooltip: 'Deterministic test model (quotes the numbered sources of the prompt)',
    detail: 'test',
    maxInputTokens,
    maxOutputTokens: 4096,
    isDefault: true,
    isUserSelectable: true,
    capabilities: { toolCalling: false, imageInput: false },
  };

  /** @type {any[]} */
  const recorded = [];
  let jsonOverride;
  /** @type {Record<string, string> | undefined} */
  let translations;

  const provider = {
    provideLanguageModelChatInformation() {
      return [info];
    },
    async provideLanguageModelChatResponse(model, messages, options, progress, token) {
      const msgs = messages.map((m) => ({ role: roleName(m.role), text: messageText(m) }));
      const modelOptions = options && options.modelOptions ? options.modelOptions : undefined;
      const reply = replyFor(msgs, { modelOptions, jsonOverride, translations });
      recorded.push({ modelId: model.id, messages: msgs, modelOptions: modelOptions ?? null, reply, at: Date.now() });
      if (recorded.length > MAX_RECORDED) recorded.shift();
      for (const part of streamParts(reply)) {
        if (token.isCancellationRequested) return;
        progress.report(new vscode.LanguageModelTextPart(part));
        await new Promise((r) => setTimeout(r, 2));
      }
    },
    async provideTokenCount(_model, text) {
      const s = typeof text === 'string' ? text : messageText(text);
      // About 4 characters per token, like the usual estimates.
      return Math.ceil(s.length / 4);
    },
  };

  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('copilot', provider),
    vscode.commands.registerCommand('docsRagTestLm.getRequests', () => JSON.parse(JSON.stringify(recorded))),
    vscode.commands.registerCommand('docsRagTestLm.clearRequests', () => {
      recorded.length = 0;
    }),
    vscode.commands.registerCommand('docsRagTestLm.setTranslations', (value) => {
      translations = value && typeof value === 'object' ? value : undefined;
    }),
    vscode.commands.registerCommand('docsRagTestLm.setJsonReply', (value) => {
      jsonOverride = value === undefined ? undefined : value;
    }),
  );
}

function deactivate() {}

module.exports = { activate, deactivate };
