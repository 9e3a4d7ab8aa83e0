// Untrusted names and text made safe to print on a terminal or render in chat. A file name or a document can carry
// control characters: ESC starts sequences that set the clipboard (OSC 52) or the window title, move the cursor or
// hide text; CR overwrites a line; C1 controls act as ESC sequences in some terminals; bidi overrides reorder what is
// shown. None of them may reach the screen raw.

/** C0 controls except tab and newline, DEL, C1 controls, bidi embedding/override/isolate characters. */
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** The same plus tab and newline: a name is one line. */
const CONTROL_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** A file name, heading or location for one line of output: every control character shows as U+FFFD. */
export function printableName(name: string): string {
  return name.replace(CONTROL_IN_NAME, '\ufffd');
}

/**
 * A path as one shell word for a command line shown to the user (a hint to copy): as it is when it holds only safe
 * characters, else in single quotes, so a name with spaces, `$(…)` or `;` stays one argument and runs nothing.
 */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command that builds or rebuilds the index of `folder` (with `store` when it is not the folder's own). */
export function indexCommandLine(folder: string, store?: string): string {
  return ['docs-rag index', shellWord(folder), ...(store ? ['--store', shellWord(store)] : [])].join(' ');
}

/** Multi-line text (an answer, a snippet, a reason): the same, but tabs and newlines are kept. */
export function printableText(text: string): string {
  return text.replace(CONTROL_IN_TEXT, '\ufffd');
}
