import { syntaxError, type SourcePosition } from "./errors.js";

/**
 * The JModel lexer: source text to tokens. Keywords are reserved (a set cannot be called `sum`), so the
 * parser never has to guess whether a word is a name. Comments are `# … end of line` and `/* … *\/`.
 */

export const KEYWORDS = [
  "set",
  "param",
  "var",
  "minimize",
  "maximize",
  "subject",
  "in",
  "sum",
  "min",
  "max",
  "card",
  "abs",
  "floor",
  "ceil",
  "sqrt",
  "exp",
  "log",
  "integer",
  "binary",
  "default",
  "dimen",
  "within",
  "union",
  "inter",
  "diff",
  "symdiff",
  "cross",
  "by",
  "and",
  "or",
  "not",
  "if",
  "then",
  "else",
  "mod",
  "infinity",
] as const;
export type Keyword = (typeof KEYWORDS)[number];

/** `s.t.` is the short form of `subject to`; the lexer folds both spellings into this one token. */
export const SUBJECT_TO = "subject to";

const PUNCTUATION = [":=", "..", "<=", ">=", "==", "!=", "<>", ";", ":", ",", "(", ")", "{", "}", "[", "]", "+", "-", "*", "/", "^", "<", ">", "="] as const;
export type Punctuation = (typeof PUNCTUATION)[number];

export type TokenType = "name" | "number" | "string" | "eof" | Keyword | Punctuation | typeof SUBJECT_TO;

export interface Token extends SourcePosition {
  type: TokenType;
  /** The text as written (for a string: its contents without quotes). */
  text: string;
  /** Numeric value of a number token. */
  value: number;
  /** Offsets of the token in the source, for quoting expressions back (`start` inclusive, `end` exclusive). */
  start: number;
  end: number;
}

const KEYWORD_SET: ReadonlySet<string> = new Set<string>(KEYWORDS);

/** Punctuation by first character, longest first, so `<=` wins over `<`. */
const PUNCTUATION_BY_FIRST = new Map<string, Punctuation[]>();
for (const p of [...PUNCTUATION].sort((a, b) => b.length - a.length)) {
  const list = PUNCTUATION_BY_FIRST.get(p[0]!) ?? [];
  list.push(p);
  PUNCTUATION_BY_FIRST.set(p[0]!, list);
}

const isDigit = (c: string) => c >= "0" && c <= "9";
const isNameStart = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
const isNamePart = (c: string) => isNameStart(c) || isDigit(c);

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;

  const here = (): SourcePosition => ({ line, column: i - lineStart + 1 });
  const push = (type: TokenType, start: number, at: SourcePosition, text = source.slice(start, i), value = 0) =>
    tokens.push({ type, text, value, start, end: i, line: at.line, column: at.column });
  /** Advances over one newline (\n, \r\n or a lone \r) at i, if there is one. */
  const newline = (): boolean => {
    const c = source[i];
    if (c === "\r") i += source[i + 1] === "\n" ? 2 : 1;
    else if (c === "\n") i += 1;
    else return false;
    line += 1;
    lineStart = i;
    return true;
  };

  while (i < source.length) {
    const c = source[i]!;
    if (newline()) continue;
    if (c === " " || c === "\t" || c === "\f" || c === "\v") {
      i++;
      continue;
    }
    if (c === "#") {
      while (i < source.length && source[i] !== "\n" && source[i] !== "\r") i++;
      continue;
    }
    if (c === "/" && source[i + 1] === "*") {
      const at = here();
      i += 2;
      while (i < source.length && !(source[i] === "*" && source[i + 1] === "/")) if (!newline()) i++;
      if (i >= source.length) throw syntaxError("unterminated_comment", at, "comment `/*` is never closed with `*/`");
      i += 2;
      continue;
    }

    const at = here();
    const start = i;
    if (isDigit(c) || (c === "." && isDigit(source[i + 1] ?? ""))) {
      lexNumber();
      const text = source.slice(start, i);
      const value = Number(text);
      if (!Number.isFinite(value)) throw syntaxError("invalid_number", at, `number \`${text}\` is too large`);
      if (isNameStart(source[i] ?? "")) {
        throw syntaxError("invalid_number", at, `\`${text}${source[i]}\` is not a number; put an operator or a space between a number and a name`);
      }
      push("number", start, at, text, value);
      continue;
    }
    if (isNameStart(c)) {
      while (i < source.length && isNamePart(source[i]!)) i++;
      const word = source.slice(start, i);
      if (word === "s" && source.startsWith(".t.", i)) {
        i += 3;
        push(SUBJECT_TO, start, at);
      } else if (word === "Infinity") {
        push("infinity", start, at);
      } else {
        push(KEYWORD_SET.has(word) ? (word as Keyword) : "name", start, at);
      }
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      while (i < source.length && source[i] !== c && source[i] !== "\n" && source[i] !== "\r") i++;
      if (source[i] !== c) throw syntaxError("unterminated_string", at, `string starting here is not closed with ${c} on the same line`);
      i++;
      push("string", start, at, source.slice(start + 1, i - 1));
      continue;
    }
    const punctuation = PUNCTUATION_BY_FIRST.get(c)?.find((p) => p.length === 1 || source.startsWith(p, i));
    if (punctuation === undefined) {
      throw syntaxError("unexpected_character", at, `unexpected character \`${c}\``);
    }
    i += punctuation.length;
    // `<>` is AMPL's spelling of "not equal"; one token type keeps the parser simple.
    push(punctuation === "<>" ? "!=" : punctuation, start, at);
  }
  const at = here();
  tokens.push({ type: "eof", text: "", value: 0, start: i, end: i, line: at.line, column: at.column });
  return tokens;

  function lexNumber(): void {
    while (isDigit(source[i] ?? "")) i++;
    // A fraction needs a digit after the dot, so that `1..n` lexes as 1, `..`, n.
    if (source[i] === "." && isDigit(source[i + 1] ?? "")) {
      i++;
      while (isDigit(source[i] ?? "")) i++;
    }
    if (source[i] === "e" || source[i] === "E") {
      const sign = source[i + 1] === "+" || source[i + 1] === "-" ? 1 : 0;
      if (isDigit(source[i + 1 + sign] ?? "")) {
        i += 1 + sign;
        while (isDigit(source[i] ?? "")) i++;
      }
    }
  }
}

/** How a token is named in messages: `;`, a name `cost`, the end of the model. */
export function describeToken(token: Token): string {
  switch (token.type) {
    case "eof":
      return "the end of the model";
    case "name":
      return `name \`${token.text}\``;
    case "number":
      return `number \`${token.text}\``;
    case "string":
      return `string "${token.text}"`;
    default:
      return `\`${token.text}\``;
  }
}
