import { ProblemParseError } from "./parse-error.js";

/**
 * Tokens of the CPLEX LP format. Section keywords count only as the first word of a line (so a
 * variable may be called `bin` mid-expression); `\` starts a comment; everything after `End` is
 * ignored. Numbers and names need no space between them (`2x` is 2·x, as CPLEX reads it).
 */

export enum Token {
  Number,
  Name,
  Plus,
  Minus,
  Times,
  Power,
  Slash,
  OpenBracket,
  CloseBracket,
  Colon,
  /** `<=`, `>=` or `=` (`<` and `=<` are `<=`, as in CPLEX). */
  Sense,
  /** `->`: an indicator constraint. */
  Implies,
  Section,
}

export type LpSection =
  | "minimize"
  | "maximize"
  | "constraints"
  | "bounds"
  | "generals"
  | "binaries"
  | "semi-continuous"
  | "sos"
  | "lazy constraints"
  | "user cuts"
  | "end";

const ONE_WORD_SECTIONS = new Map<string, LpSection>([
  ["minimize", "minimize"],
  ["minimise", "minimize"],
  ["minimum", "minimize"],
  ["min", "minimize"],
  ["maximize", "maximize"],
  ["maximise", "maximize"],
  ["maximum", "maximize"],
  ["max", "maximize"],
  ["st", "constraints"],
  ["s.t.", "constraints"],
  ["st.", "constraints"],
  ["bounds", "bounds"],
  ["bound", "bounds"],
  ["general", "generals"],
  ["generals", "generals"],
  ["gen", "generals"],
  ["integer", "generals"],
  ["integers", "generals"],
  ["binary", "binaries"],
  ["binaries", "binaries"],
  ["bin", "binaries"],
  ["semi-continuous", "semi-continuous"],
  ["semis", "semi-continuous"],
  ["semi", "semi-continuous"],
  ["sos", "sos"],
  ["end", "end"],
]);
const TWO_WORD_SECTIONS = new Map<string, LpSection>([
  ["subject to", "constraints"],
  ["such that", "constraints"],
  ["lazy constraints", "lazy constraints"],
  ["user cuts", "user cuts"],
]);

/** Every word the LP format reserves: a writer must not use them as names. */
export const LP_RESERVED_WORDS = new Set([...ONE_WORD_SECTIONS.keys(), "subject", "such", "lazy", "user", "free", "inf", "infinity", "infinite"]);

export interface LpTokens {
  kinds: Token[];
  /** Number value, or 0. */
  values: number[];
  /** Name, sense (`<=`, `>=`, `=`), section, or the source text of other tokens. */
  texts: string[];
  lines: number[];
  /** The problem name from a `\Problem name: x` comment, as CPLEX and SCIP write it. */
  problemName: string | null;
  /** Line of `End`, or 0 if the file has none. */
  endLine: number;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12;
}

/** Characters that end a name: space, + - * ^ [ ] : < > = and the comment mark. */
function endsName(c: number): boolean {
  return isSpace(c) || c === 43 || c === 45 || c === 42 || c === 94 || c === 91 || c === 93 || c === 58 || c === 60 || c === 62 || c === 61 || c === 92;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

const PROBLEM_NAME_COMMENT = /^\\\s*problem name\s*:\s*(\S+)/i;

export function tokenizeLp(text: string): LpTokens {
  const tokens: LpTokens = { kinds: [], values: [], texts: [], lines: [], problemName: null, endLine: 0 };
  const push = (kind: Token, textValue: string, line: number, value = 0) => {
    tokens.kinds.push(kind);
    tokens.values.push(value);
    tokens.texts.push(textValue);
    tokens.lines.push(line);
  };
  let lineNumber = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    lineNumber++;
    const line = text.slice(start, end);
    start = end + 1;
    let i = 0;
    while (i < line.length && isSpace(line.charCodeAt(i))) i++;
    if (i < line.length && line.charCodeAt(i) === 92 /* \ */) {
      if (tokens.problemName === null && tokens.kinds.length === 0) tokens.problemName = PROBLEM_NAME_COMMENT.exec(line.slice(i))?.[1] ?? null;
      continue;
    }
    const section = sectionAt(line, i);
    if (section !== null) {
      push(Token.Section, section.section, lineNumber);
      if (section.section === "end") {
        tokens.endLine = lineNumber;
        return tokens;
      }
      i = section.end;
    }
    while (i < line.length) {
      const c = line.charCodeAt(i);
      if (isSpace(c)) {
        i++;
        continue;
      }
      if (c === 92 /* \ */) break;
      if (isDigit(c) || (c === 46 /* . */ && isDigit(line.charCodeAt(i + 1)))) {
        const from = i;
        while (isDigit(line.charCodeAt(i))) i++;
        if (line.charCodeAt(i) === 46) {
          i++;
          while (isDigit(line.charCodeAt(i))) i++;
        }
        const e = line.charCodeAt(i);
        if (e === 101 || e === 69) {
          const sign = line.charCodeAt(i + 1);
          const digitAt = sign === 43 || sign === 45 ? i + 2 : i + 1;
          if (isDigit(line.charCodeAt(digitAt))) {
            i = digitAt;
            while (isDigit(line.charCodeAt(i))) i++;
          }
        }
        const literal = line.slice(from, i);
        push(Token.Number, literal, lineNumber, Number(literal));
        continue;
      }
      const next = line.charCodeAt(i + 1);
      switch (c) {
        case 43:
          push(Token.Plus, "+", lineNumber);
          i++;
          continue;
        case 45:
          if (next === 62) {
            push(Token.Implies, "->", lineNumber);
            i += 2;
            continue;
          }
          push(Token.Minus, "-", lineNumber);
          i++;
          continue;
        case 42:
          push(Token.Times, "*", lineNumber);
          i++;
          continue;
        case 94:
          push(Token.Power, "^", lineNumber);
          i++;
          continue;
        case 47:
          push(Token.Slash, "/", lineNumber);
          i++;
          continue;
        case 91:
          push(Token.OpenBracket, "[", lineNumber);
          i++;
          continue;
        case 93:
          push(Token.CloseBracket, "]", lineNumber);
          i++;
          continue;
        case 58:
          push(Token.Colon, ":", lineNumber);
          i++;
          continue;
        case 60:
          push(Token.Sense, "<=", lineNumber);
          i += next === 61 ? 2 : 1;
          continue;
        case 62:
          push(Token.Sense, ">=", lineNumber);
          i += next === 61 ? 2 : 1;
          continue;
        case 61:
          if (next === 60) {
            push(Token.Sense, "<=", lineNumber);
            i += 2;
            continue;
          }
          if (next === 62) {
            push(Token.Sense, ">=", lineNumber);
            i += 2;
            continue;
          }
          push(Token.Sense, "=", lineNumber);
          i++;
          continue;
      }
      if (c === 46) throw new ProblemParseError("lp", lineNumber, `a name cannot start with "." ("${line.slice(i).split(/\s/)[0]}")`);
      const from = i;
      while (i < line.length && !endsName(line.charCodeAt(i))) i++;
      push(Token.Name, line.slice(from, i), lineNumber);
    }
  }
  return tokens;
}

/** The section keyword starting at `i` (the line's first word), if there is one, and where it ends. */
function sectionAt(line: string, i: number): { section: LpSection; end: number } | null {
  const c = line.charCodeAt(i);
  // Keywords start with a letter; skip the lookup for the common lines starting with a sign or digit.
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return null;
  let end = i;
  while (end < line.length && !isSpace(line.charCodeAt(end))) end++;
  const word = line.slice(i, end).toLowerCase();
  const one = ONE_WORD_SECTIONS.get(word);
  if (one !== undefined) return { section: one, end };
  if (word === "subject" || word === "such" || word === "lazy" || word === "user") {
    let from = end;
    while (from < line.length && isSpace(line.charCodeAt(from))) from++;
    let to = from;
    while (to < line.length && !isSpace(line.charCodeAt(to))) to++;
    const two = TWO_WORD_SECTIONS.get(`${word} ${line.slice(from, to).toLowerCase()}`);
    if (two !== undefined) return { section: two, end: to };
  }
  return null;
}
