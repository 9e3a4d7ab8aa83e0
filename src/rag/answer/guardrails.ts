// Guardrails: question limits, prompt-injection flags, secret redaction in generated text, low-support disclaimer.
import type { Lang } from '../types';

export const MIN_QUESTION_CHARS = 3;
export const MAX_QUESTION_CHARS = 2000;

/** A question outside the limits; the message says what to do. */
export class QuestionError extends Error {
  constructor(
    readonly kind: 'too-short' | 'too-long',
    message: string,
  ) {
    super(message);
    this.name = 'QuestionError';
  }
}

/** Trims the question and checks its length (3–2,000 characters). Throws QuestionError with the next step. */
export function checkQuestion(question: string): string {
  const q = question.trim();
  const n = [...q].length;
  if (n < MIN_QUESTION_CHARS) {
    throw new QuestionError(
      'too-short',
      `The question is too short (${n} character${n === 1 ? '' : 's'}); ask at least ${MIN_QUESTION_CHARS} characters, e.g. "How long is the notice period?".`,
    );
  }
  if (n > MAX_QUESTION_CHARS) {
    throw new QuestionError(
      'too-long',
      `The question is too long (${n} characters, at most ${MAX_QUESTION_CHARS}). Shorten it to the question itself; ` +
        'to work with a long text, save it as a file in the folder and index it.',
    );
  }
  return q;
}

interface Pattern {
  name: string;
  re: RegExp;
}

const INJECTION_PATTERNS: Pattern[] = [
  { name: 'ignore-instructions', re: /\b(ignore|disregard|forget|override|skip)\b.{0,40}\b(previous|prior|above|earlier|all|any|your|the|system)\b.{0,20}\b(instructions?|rules?|prompts?|directions?|guidelines?)\b/i },
  { name: 'ignore-instructions-de', re: /\b(ignorier\w*|vergiss|vergessen|missachte\w*|überschreib\w*)\b.{0,40}\b(anweisung\w*|instruktion\w*|regeln|vorgaben|prompt\w*|befehle?)\b/i },
  { name: 'role-change', re: /\b(you are now|from now on,? you|act as|pretend (to be|you are)|roleplay as|du bist (jetzt|nun|ab sofort)|ab sofort bist du|spiele die rolle)\b/i },
  { name: 'reveal-prompt', re: /\b(reveal|show|print|repeat|output|leak|zeig\w*|gib|verrat\w*|wiederhol\w*)\b.{0,30}\b(system ?prompt|hidden (instructions?|prompt)|your (instructions|rules|prompt)|systemprompt|deine (anweisungen|regeln|instruktionen))\b/i },
  { name: 'jailbreak', re: /\b(jailbreak|DAN mode|developer mode|do anything now|no restrictions|ohne einschränkungen)\b/i },
  { name: 'fake-delimiter', re: /<\/?\s*(system|sources?|instructions?)\s*>|<\|(im_start|im_end|system|endoftext)\|>|\[\/?INST\]|<<\/?SYS>>/i },
  { name: 'new-instructions', re: /\b(new|neue)\s+(instructions?|anweisungen|regeln|rules)\s*:/i },
];

/** Names of the injection patterns a text matches (empty: nothing suspicious). */
export function detectInjection(text: string): string[] {
  return INJECTION_PATTERNS.filter((p) => p.re.test(text)).map((p) => p.name);
}

interface SecretPattern {
  kind: string;
  re: RegExp;
  /** Replacement; `$1` keeps a "key: " prefix where the pattern captures one. */
  replace: string;
}

const REDACTED = '[REDACTED]';

const SECRET_PATTERNS: SecretPattern[] = [
  { kind: 'private key', re: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, replace: REDACTED },
  { kind: 'OpenAI-style API key', re: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}/g, replace: REDACTED },
  { kind: 'GitHub token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, replace: REDACTED },
  { kind: 'AWS access key', re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/g, replace: REDACTED },
  { kind: 'Slack token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: REDACTED },
  { kind: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: REDACTED },
  { kind: 'JSON web token', re: /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, replace: REDACTED },
  { kind: 'credentials in URL', re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(@)/gi, replace: `$1${REDACTED}$2` },
  {
    kind: 'AWS secret key',
    re: /\b(aws_secret_access_key|aws_secret_key|secret_access_key)(["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{30,}/gi,
    replace: `$1$2${REDACTED}`,
  },
  {
    kind: 'password',
    // "password: hunter2", "Passwort = geheim", "pwd=…", "api_key: …", "token = \"…\"", "the password is s3cret!".
    re: /\b(passwor[dt]|passwd|pwd|kennwort|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|client[_-]?secret)(\s*["']?\s*(?:[:=]|\bis\b|\bist\b|\blautet\b)\s*)(["'`]?)(?!\[REDACTED\])([^\s"'`,;)]+)/gi,
    replace: `$1$2$3${REDACTED}`,
  },
];

export interface RedactionResult {
  text: string;
  count: number;
  kinds: string[];
}

/** Replaces secrets (API keys, tokens, passwords, private keys) in generated text with [REDACTED]. */
export function redactSecrets(text: string): RedactionResult {
  let out = text;
  let count = 0;
  const kinds = new Set<string>();
  for (const p of SECRET_PATTERNS) {
    out = out.replace(p.re, (...args: unknown[]) => {
      const match = String(args[0]);
      if (p.kind === 'password' && !isSecretValue(String(args[1]), String(args[2]), String(args[3]), String(args[4]))) return match;
      count++;
      kinds.add(p.kind);
      return p.replace.replace(/\$(\d)/g, (_m, i: string) => String(args[Number(i)] ?? ''));
    });
  }
  return { text: out, count, kinds: [...kinds] };
}

const PASSWORD_WORDS = /^(passwor[dt]|passwd|pwd|kennwort|secret|client[_-]?secret)$/i;

/**
 * Decides whether the value after "password:", "token =", "the password is" … is a secret. Citations, placeholders
 * and ordinary words ("the token is valid") are not; after ":"/"=" any value of a password word is, other keys need a
 * quoted value or one that looks generated (digits or symbols, or long mixed case).
 */
function isSecretValue(key: string, connector: string, quote: string, value: string): boolean {
  if (/^\[\d|^<|^\.\.\.|^…|^x+$|^\*+$|^\$\{|^%|^(none|null|true|false|nicht|not|no|kein\w*)$/i.test(value)) return false;
  const assigned = /[:=]/.test(connector);
  if (assigned && PASSWORD_WORDS.test(key)) return true;
  if (assigned && quote && value.length >= 4) return true;
  const generated = /\d/.test(value) || /[^\p{L}\p{N}]/u.test(value) || (value.length >= 12 && /\p{Lu}/u.test(value) && /\p{Ll}/u.test(value));
  return value.length >= 6 && generated;
}

/** Note shown with a redacted answer. */
export function redactionNote(r: RedactionResult, lang: Lang): string {
  return lang === 'de'
    ? `${r.count} mögliche${r.count === 1 ? 's' : ''} Geheimnis${r.count === 1 ? '' : 'se'} (${r.kinds.join(', ')}) wurde${r.count === 1 ? '' : 'n'} in der Antwort durch [REDACTED] ersetzt; die Quellen enthalten den Originaltext.`
    : `Redacted ${r.count} possible secret${r.count === 1 ? '' : 's'} (${r.kinds.join(', ')}) from the answer as [REDACTED]; the sources hold the original text.`;
}

/** Disclaimer added when the cited passages support too little of the answer. */
export function lowSupportDisclaimer(lang: Lang): string {
  return lang === 'de'
    ? 'Hinweis: Teile dieser Antwort werden von den zitierten Stellen nicht eindeutig gestützt. Bitte prüfen Sie die Quellen.'
    : 'Note: parts of this answer are not clearly supported by the cited passages. Please check the sources.';
}

/**
 * Redacts secrets in a token stream before it reaches the screen: text is held back until a line or sentence
 * boundary (a secret never spans one), then redacted and released.
 */
export class StreamRedactor {
  private buffer = '';
  count = 0;
  constructor(private readonly emit: (text: string) => void) {}

  push(piece: string): void {
    this.buffer += piece;
    const cut = Math.max(this.buffer.lastIndexOf('\n'), lastSentenceEnd(this.buffer));
    if (cut < 0) {
      // Very long runs without a boundary (tables, code): release all but a tail long enough to hold a secret.
      if (this.buffer.length > 400) this.release(this.buffer.length - 200);
      return;
    }
    this.release(cut + 1);
  }

  end(): void {
    this.release(this.buffer.length);
  }

  private release(upTo: number): void {
    const head = this.buffer.slice(0, upTo);
    this.buffer = this.buffer.slice(upTo);
    if (!head) return;
    const r = redactSecrets(head);
    this.count += r.count;
    this.emit(r.text);
  }
}

function lastSentenceEnd(text: string): number {
  let idx = -1;
  for (const m of text.matchAll(/[.!?]\s/g)) idx = (m.index ?? 0) + 1;
  return idx;
}
