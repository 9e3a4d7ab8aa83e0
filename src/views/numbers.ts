// Counts shown in the UI, grouped as the display language writes them (275,645 in English, 275.645 in German). No
// `vscode` import: the caller passes VS Code's display language, so the rule is tested without VS Code.

/** `n` with the digit grouping of `language` (a BCP 47 tag such as 'de' or 'en-US'; an unknown one falls back to English). */
export function formatCount(n: number, language: string): string {
  try {
    return n.toLocaleString(language);
  } catch {
    return n.toLocaleString('en');
  }
}
