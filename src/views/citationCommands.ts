// Opening citations: the exact range in the editor, and the original of an extracted-text document in the system viewer.
import * as vscode from 'vscode';
import { EXTRACT_SCHEME, type ExtractedTextProvider } from './extractProvider';
import { EXTENSION_ID } from './engineModules';
import { errorMessage } from './log';
import { DOC_FORMATS, FORMATS } from '../rag/formats';

/** The kinds whose citations open an extracted-text document: every format not cited by lines. */
const EXTRACTED_KINDS = DOC_FORMATS.filter((f) => FORMATS[f].location !== 'lines').map((f) => FORMATS[f].name).join(', ');

export interface LocationArg {
  uri: string;
  /** [startLine, startCharacter, endLine, endCharacter], 0-based. */
  range: [number, number, number, number];
  /** e.g. "Page 3" for extracted text. */
  note?: string;
}

export function toLocationArg(location: vscode.Location, note?: string): LocationArg {
  const r = location.range;
  return { uri: location.uri.toString(), range: [r.start.line, r.start.character, r.end.line, r.end.character], note };
}

/** The editor title's button: the openOriginal command's title from the manifest, as VS Code localised it. */
function openOriginalTitle(): string {
  const commands = (vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as { contributes?: { commands?: { command: string; title: string | { value: string } }[] } } | undefined)?.contributes?.commands;
  const title = commands?.find((c) => c.command === 'docsRag.openOriginal')?.title;
  return typeof title === 'string' ? title : (title?.value ?? 'docsRag.openOriginal');
}

export async function openLocation(location: vscode.Location, note?: string): Promise<vscode.TextEditor> {
  const editor = await vscode.window.showTextDocument(location.uri, { selection: location.range, preview: true, preserveFocus: false });
  editor.revealRange(location.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  if (location.uri.scheme === EXTRACT_SCHEME) {
    const message = note
      ? vscode.l10n.t('Docs RAG: extracted text — {0}. "{1}" in the editor title opens the file itself.', note, openOriginalTitle())
      : vscode.l10n.t('Docs RAG: extracted text. "{0}" in the editor title opens the file itself.', openOriginalTitle());
    void vscode.window.setStatusBarMessage(message, 8000);
  }
  return editor;
}

export function registerCitationCommands(extracts: ExtractedTextProvider): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('docsRag.openLocation', async (arg: LocationArg) => {
      if (!arg || typeof arg.uri !== 'string' || !Array.isArray(arg.range) || arg.range.length !== 4) return undefined;
      const [sl, sc, el, ec] = arg.range;
      return openLocation(new vscode.Location(vscode.Uri.parse(arg.uri), new vscode.Range(sl, sc, el, ec)), arg.note);
    }),
    vscode.commands.registerCommand('docsRag.openOriginal', async (uri?: vscode.Uri) => {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!target || target.scheme !== EXTRACT_SCHEME) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Docs RAG: open an extracted-text document first (click a citation into a file of one of these kinds: {0}).', EXTRACTED_KINDS));
        return false;
      }
      let original: vscode.Uri;
      try {
        original = extracts.originalOf(target);
      } catch (err) {
        void vscode.window.showErrorMessage(errorMessage(err));
        return false;
      }
      const opened = await vscode.env.openExternal(original);
      if (!opened) void vscode.window.showWarningMessage(vscode.l10n.t('Docs RAG: the system could not open {0}. Open it from your file manager.', original.fsPath));
      return opened;
    }),
  ];
}
