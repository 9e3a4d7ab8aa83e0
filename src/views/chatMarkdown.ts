// Text for the `@docs` chat Markdown (pure, no `vscode` import, unit-tested with mocha). Document text and generated
// answer text are untrusted: a link, an image, an autolink or HTML planted in a document and repeated by the model must
// show as text, never as something clickable or loaded. Citations are not Markdown links: the participant renders them
// as anchors (stream.anchor) with the locations it resolved itself.

/** Escapes document text for chat Markdown so it shows as text (no links, images, HTML or formatting). */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|~&]/g, (c) => `\\${c}`);
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
 * `<`, `>` and the backslash. Works character by character, so it is safe on streamed pieces however the text is split
 * (a link whose parts arrive in different pieces cannot form).
 */
export function neutraliseGeneratedMarkdown(text: string): string {
  return text.replace(/[\\[\]<>]/g, (c) => `\\${c}`);
}
