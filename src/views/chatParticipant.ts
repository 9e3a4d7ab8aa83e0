// The `@docs` chat participant: answers from the workspace documents with [n] citations as inline anchors and a list
// of references (exact ranges); `/search` lists passages, `/summary` runs the summary flow, `/status` shows the index.
import * as vscode from 'vscode';
import type { ChatModel } from '../rag/types';
import { chooseChatModel, RESTRICTED_NOTE } from './chatModels';
import { escapeMarkdown, escapeQuotedText, neutraliseGeneratedMarkdown } from './chatMarkdown';
import { CitationStreamer } from './citationStream';
import { type AskCitation, type DocsService, type ResolvedHit, type ViewStage } from './docsService';
import { errorMessage, type Log } from './log';
import { readSettings } from './settings';
import { statusMarkdown } from './statusReport';
import { queryTerms, snippetFor } from './webviewProtocol';
import { VscodeChatModel } from './vscodeChatModel';

export const PARTICIPANT_ID = 'docs-rag.docs';

export interface DocsChatResult extends vscode.ChatResult {
  metadata: { command?: string; question: string; citations: number; mode?: string };
}

export { escapeMarkdown, escapeQuotedText };

/**
 * Chat Markdown built from untrusted text (documents, model output): never trusted (no command links), no HTML, no
 * theme icons. The text itself is escaped by the caller (chatMarkdown.ts).
 */
export function untrustedMarkdown(value: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(value, false);
  md.isTrusted = false;
  md.supportHtml = false;
  return md;
}

function anchorTitle(h: ResolvedHit): string {
  return h.note ? `${h.label} (${h.note})` : h.label;
}

/**
 * The model `@docs` answers with: `request.model` (the model picked in the chat), or the Ollama chat model when
 * `docsRag.chatModel` is "ollama" (if Ollama is unreachable: none, with a note saying why). None in Restricted Mode.
 */
async function participantModel(
  request: vscode.ChatRequest,
  log: Log,
  token: vscode.CancellationToken,
): Promise<{ model?: ChatModel; note?: string; name: string }> {
  if (!vscode.workspace.isTrusted) return { note: RESTRICTED_NOTE, name: '' };
  if (readSettings().chatModel === 'ollama') {
    const chosen = await chooseChatModel(log, token);
    return { model: chosen.model, note: chosen.note, name: chosen.model?.id ?? '' };
  }
  return { model: new VscodeChatModel(request.model, token), name: request.model.name };
}

/** A stage of the search and answer as the progress line names it, in the display language (with the model where one works). */
function stageLine(stage: ViewStage, modelName: string): string | undefined {
  switch (stage) {
    case 'checking-citations':
      // The citation check runs after the text is complete; a progress line then would stay below the answer.
      return undefined;
    case 'generating':
      return vscode.l10n.t('Writing the answer with {0}…', modelName);
    case 'searching':
      return vscode.l10n.t('Searching the documents…');
    case 'searching-with-model':
      return vscode.l10n.t('Searching with the model…');
    case 'translating':
      return modelName ? vscode.l10n.t('Translating the question with {0}…', modelName) : vscode.l10n.t('Translating the question…');
  }
}

export function createChatHandler(service: DocsService, log: Log): vscode.ChatRequestHandler {
  return async (request, _context, stream, token): Promise<DocsChatResult> => {
    const question = request.prompt.trim();
    const meta: DocsChatResult['metadata'] = { command: request.command, question, citations: 0 };
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    try {
      if (request.command === 'status') {
        stream.progress(vscode.l10n.t('Reading the index status…'));
        stream.markdown(await statusMarkdown(service.host));
        stream.button({ command: 'docsRag.reindex', title: vscode.l10n.t('Reindex documents') });
        return { metadata: meta };
      }
      if (service.host.folders().length === 0) {
        stream.markdown(vscode.l10n.t('Open a folder first: `@docs` answers from the documents of the open workspace folders.'));
        return { metadata: meta };
      }
      if (!question) {
        stream.markdown(vscode.l10n.t('Ask a question about your documents, for example `@docs What does the Arbeitszeitgesetz say about breaks?`'));
        return { metadata: meta };
      }
      stream.progress(vscode.l10n.t('Opening the index…'));
      if ((await service.host.passageCount()) === 0) {
        stream.markdown(
          service.host.busy()
            ? vscode.l10n.t('The documents are being indexed right now. Ask again in a moment, or watch the progress in the status bar.')
            : await service.host.emptyIndexMessage(vscode.l10n.t('Nothing is indexed yet. Index the documents of this workspace first; it runs locally and updates itself afterwards.')),
        );
        stream.button({ command: 'docsRag.reindex', title: vscode.l10n.t('Reindex documents') });
        return { metadata: meta };
      }
      // The chat's own model, or Ollama when docsRag.chatModel says so; none in Restricted Mode.
      const { model: chatModel, note: modelNote, name: modelName } = await participantModel(request, log, token);

      if (request.command === 'search') {
        stream.progress(vscode.l10n.t('Searching the documents…'));
        const { hits } = await service.search(question, { k: 10, chatModel, signal: abort.signal, onStage: (stage) => {
          const line = stageLine(stage, modelName);
          if (line) stream.progress(line);
        } });
        if (token.isCancellationRequested) return { metadata: meta };
        if (hits.length === 0) {
          stream.markdown(vscode.l10n.t('No passages match “{0}”. Try other words, or check `/status`.', escapeMarkdown(question)));
          return { metadata: meta };
        }
        const terms = queryTerms(question);
        stream.markdown(`${vscode.l10n.t('**{0} passages** for “{1}”:', hits.length, escapeMarkdown(question))}\n\n`);
        hits.forEach((h, i) => {
          stream.markdown(`${i + 1}. `);
          stream.anchor(h.location, anchorTitle(h));
          const heading = h.hit.passage.headingPath.slice(1).join(' › ');
          stream.markdown(untrustedMarkdown(`${heading ? ` — ${escapeMarkdown(heading)}` : ''}\n\n> ${escapeMarkdown(snippetFor(h.hit.passage.text, terms, 240))}\n\n`));
          stream.reference(h.location);
        });
        meta.citations = hits.length;
        return { metadata: meta };
      }

      stream.progress(request.command === 'summary' ? vscode.l10n.t('Collecting the matching documents and sections…') : vscode.l10n.t('Searching the documents…'));
      let sources = new Map<number, AskCitation>();
      // The extractive answer (no model, or after the model failed) quotes documents verbatim: show their text as text,
      // not as Markdown.
      let quoted = !chatModel;
      // Markers that match no source are dropped while streaming (never shown); answer text is neutralised.
      const streamer = new CitationStreamer(
        (piece) => {
          if (piece.kind === 'text') stream.markdown(untrustedMarkdown(quoted ? escapeQuotedText(piece.text) : neutraliseGeneratedMarkdown(piece.text)));
          else {
            const source = sources.get(piece.n);
            if (source) stream.anchor(source.hit.location, `[${piece.n}] ${anchorTitle(source.hit)}`);
          }
        },
        (n) => sources.has(n),
      );
      const outcome = await service.ask(question, {
        chatModel,
        noModelNote: modelNote,
        flow: request.command === 'summary' ? 'summary' : undefined,
        signal: abort.signal,
        onStage: (stage) => {
          const line = stageLine(stage, modelName);
          if (line) stream.progress(line);
        },
        onSources: (list) => {
          sources = new Map(list.map((c) => [c.n, c]));
        },
        onExtractive: () => {
          quoted = true;
        },
        onToken: (text) => {
          if (!token.isCancellationRequested) streamer.push(text);
        },
      });
      if (token.isCancellationRequested) return { metadata: meta };
      streamer.end();
      meta.citations = outcome.citations.length;
      meta.mode = outcome.mode;
      if (outcome.notes.length) stream.markdown(untrustedMarkdown(`\n\n${outcome.notes.map((n) => `> ${escapeMarkdown(n)}`).join('\n>\n')}\n`));
      for (const c of outcome.citations) stream.reference(c.hit.location);
      return { metadata: meta };
    } catch (err) {
      if (token.isCancellationRequested) return { metadata: meta };
      log.error(`@docs: ${errorMessage(err)}`);
      return { metadata: meta, errorDetails: { message: vscode.l10n.t('Docs RAG could not answer: {0}', errorMessage(err)) } };
    } finally {
      sub.dispose();
    }
  };
}

export const followupProvider: vscode.ChatFollowupProvider = {
  provideFollowups(result: vscode.ChatResult) {
    const meta = (result as DocsChatResult).metadata;
    if (!meta?.question || meta.command === 'status') return [];
    const out: vscode.ChatFollowup[] = [];
    if (meta.command !== 'search') out.push({ prompt: meta.question, command: 'search', label: vscode.l10n.t('Show the matching passages') });
    if (meta.command !== 'summary') out.push({ prompt: meta.question, command: 'summary', label: vscode.l10n.t('Summarise what the documents say about this') });
    return out;
  },
};

export function registerChatParticipant(context: vscode.ExtensionContext, service: DocsService, log: Log): vscode.ChatParticipant {
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, createChatHandler(service, log));
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'docs.svg');
  participant.followupProvider = followupProvider;
  return participant;
}
