// Defined terms, model-free: a definition sentence ("Werktage sind alle Kalendertage …", "Arbeitszeit im Sinne dieses
// Gesetzes ist …", "A *virtual manifest* is …", "The term “x” means …") and the passages of the same document that use
// the term afterwards.
import { FUNCTION_WORDS } from '../text/language';
import { foldText } from '../text/fold';
import { splitSentences } from '../text/sentences';

/** Terms a text defines, folded ("werktage", "virtual manifest"). `source` is its Markdown source when there is one. */
export function definedTerms(text: string, source?: string): string[] {
  const out = new Set<string>();
  const add = (t: string) => {
    const f = foldText(t.trim()).replace(/\s+/g, ' ');
    if (f.length >= 4 && !FUNCTION_WORDS.has(f)) out.add(f);
  };
  for (const s of splitSentences(text, 'de')) {
    const sentence = s.text.replace(/^\(\d+[a-z]?\)\s*/, '').replace(/^\d+\.\s*/, '');
    // German: "<Noun> [und <Noun>] im Sinne dieses Gesetzes sind/ist …", "<Noun> sind/ist alle/jede/die …".
    let m = /^(?:Der|Die|Das)?\s*(\p{Lu}[\p{L}-]+(?:\s+(?:und|oder)\s+\p{Lu}[\p{L}-]+)?)\s+im\s+Sinne\s+dieses\s+\p{Lu}\p{L}+\s+(?:sind|ist)\b/u.exec(sentence);
    if (m) for (const t of m[1].split(/\s+(?:und|oder)\s+/)) add(t);
    // (Plural "sind" with a determiner, or "ist jede/jeder …": a capitalised adjective opening a sentence is not a term.)
    m = /^(\p{Lu}[\p{L}-]{3,})\s+(?:sind\s+(?:alle|jede|jeder|jedes|diejenigen|die|der|das)|ist\s+(?:jede|jeder|jedes|diejenige|derjenige|dasjenige))\s/u.exec(sentence);
    if (m && !FUNCTION_WORDS.has(m[1].toLowerCase())) add(m[1]);
    // English, plain text: "The term “x” means …", "“x” is defined as …".
    m = /^(?:The\s+term\s+)?["“]([^"”]{3,50})["”]\s+(?:means|is defined as|refers to)\b/.exec(sentence);
    if (m) add(m[1]);
  }
  // English, Markdown: an emphasised term followed by is/are/means ("A *virtual manifest* is …").
  for (const m of (source ?? '').matchAll(/(?:^|[.!?]\s+|\n)(?:An?|The)?\s*(\*\*?|_)([^*_\n]{3,50})\1\s+(?:is|are|means|refers to)\b/g)) add(m[2]);
  return [...out];
}

/** Whether a text uses a (folded) term: whole words, German inflection endings allowed ("Werktagen"). */
export function usesTerm(foldedText: string, term: string): boolean {
  let at = foldedText.indexOf(term);
  while (at >= 0) {
    const before = at === 0 ? '' : foldedText[at - 1];
    const rest = foldedText.slice(at + term.length, at + term.length + 3);
    if (!/[\p{L}\p{N}]/u.test(before) && /^(?:|n|s|en|es|e|er)(?![\p{L}\p{N}])/u.test(rest)) return true;
    at = foldedText.indexOf(term, at + 1);
  }
  return false;
}
