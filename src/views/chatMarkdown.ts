// Text for the `@docs` chat Markdown (pure, no `vscode` import, unit-tested with mocha). Document text and generated
// answer text are untrusted: a link, an image, an autolink or HTML planted in a document and repeated by the model must
// show as text, never as something clickable or loaded. Citations are not Markdown links: the participant renders them
// as anchors (stream.anchor) with the locations it resolved itself.

import { printableName, printableText } from '../rag/text/printable';

/**
 * Escapes document text (or a file name) for chat Markdown so it shows as text: no links, images, HTML or formatting,
 * and no autolink either — the chat renderer (GFM) turns a bare `https://…`, `www.…` or `a@b.c` into a link, so `:`,
 * `.` and `@` are escaped too. Control characters show as U+FFFD.
 */
export function escapeMarkdown(text: string): string {
  return printableText(text).replace(/[\\`*_{}[\]()#+\-.!<>|~&:@]/g, (c) => `\\${c}`);
}

/** A file name or other one-line value for a Markdown table cell or heading: escaped, on one line. */
export function markdownName(name: string): string {
  return escapeMarkdown(printableName(name));
}

/** Escapes quoted document text but keeps line structure and "> " quote markers (the extractive answer's layout). */
export function escapeQuotedText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const quote = /^(\s*>\s?)/.exec(line)?.[1] ?? '';
      return quote + escapeMarkdown(line.slice(quote.length));
    })
    .join('\n');
}

/**
 * Generated answer text: keeps the model's formatting (emphasis, lists, code) but escapes every character that can
 * open a link, an image, a link reference definition, an autolink (<command:…>, <javascript:…>) or HTML: `[`, `]`,
 * `<`, `>` and the backslash, and the characters that form a bare autolink (see AUTOLINK_PART). Works character by character, so it is safe on streamed pieces however the text is split
 * (a link whose parts arrive in different pieces cannot form).
 */
export function neutraliseGeneratedMarkdown(text: string): string {
  return printableText(text)
    .replace(/[\\[\]<>]/g, (c) => `\\${c}`)
    .replace(AUTOLINK_PART, (c) => `\\${c}`);
}

// The characters that let GFM autolink bare text, escaped only where they can form one (so the model's ordinary
// formatting, lists and code keep their look): a `:` before `/` (https://, ftp://), a `/` after `:`, an `@` after a
// character of an e-mail's local part, a `.` after `www`. At a piece's edge the neighbour is unknown, so the character
// is escaped there too: the rule holds however the streamed text is split.
const AUTOLINK_PART = /:(?=\/|$)|(?<=:|^)\/|(?<=[\w.+%-]|^)@|(?<=www|^w{0,2})\./gi;
