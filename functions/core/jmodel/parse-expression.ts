import type { ArithOp, CompareOp, Expr, FunctionName, IndexEntry, Indexing, SetOp } from "./ast.js";
import { syntaxError, type JModelError } from "./errors.js";
import { describeToken, type Token, type TokenType } from "./lexer.js";

/**
 * Recursive-descent parser for JModel expressions. One grammar covers arithmetic, conditions and set
 * expressions; precedence from loosest to tightest (as in AMPL):
 *
 *   or < and < not < comparisons, in, not in < union diff symdiff < inter < cross < .. (by)
 *      < + - < * / mod < unary + - < ^ (right-associative) < primary
 *
 * `sum{…} body`, `min{…} body` and `max{…} body` take a body at the level of `*`, so
 * `sum{i in I} c[i]*x[i] + 1` is `(sum{i in I} c[i]*x[i]) + 1`.
 */
/** Deepest expression accepted, far beyond hand-written models and well within the stack. */
export const MAX_NESTING = 200;

export class ExpressionParser {
  protected index = 0;
  /**
   * Depth of the expression being parsed: parentheses, unary operators and chains of binary
   * operators other than + and - all deepen the tree, and every later pass recurses over it. Reset
   * at each statement, since an error abandons the statement midway.
   */
  protected depth = 0;

  constructor(
    protected readonly tokens: Token[],
    protected readonly source: string,
  ) {}

  // ------------------------------------------------------------ token cursor

  protected get current(): Token {
    return this.tokens[this.index]!;
  }

  protected peek(ahead = 1): Token {
    return this.tokens[Math.min(this.index + ahead, this.tokens.length - 1)]!;
  }

  protected at(...types: TokenType[]): boolean {
    return types.includes(this.current.type);
  }

  protected advance(): Token {
    const token = this.current;
    if (token.type !== "eof") this.index++;
    return token;
  }

  protected accept(type: TokenType): Token | null {
    return this.at(type) ? this.advance() : null;
  }

  protected expect(type: TokenType, what = `\`${type}\``): Token {
    if (this.at(type)) return this.advance();
    throw this.unexpected(what);
  }

  protected unexpected(expected: string, token: Token = this.current): JModelError {
    return syntaxError("unexpected_token", token, `expected ${expected}, found ${describeToken(token)}`);
  }

  /** An expression and its source text, kept for symbol listings (`default 2 * base[p]`). */
  protected parseValueWithText(): [Expr, string] {
    const start = this.current.start;
    const expr = this.parseValue();
    return [expr, this.source.slice(start, this.tokens[Math.max(0, this.index - 1)]!.end)];
  }

  private deeper(): void {
    if (++this.depth > MAX_NESTING) {
      throw syntaxError("unexpected_token", this.current, `expression nested too deeply (more than ${MAX_NESTING} levels); split it with parameters`);
    }
  }

  // ------------------------------------------------------------ logical level

  parseExpression(): Expr {
    let left = this.parseAnd();
    let links = 0;
    while (this.at("or")) {
      this.deeper();
      links++;
      this.advance();
      left = { kind: "logical", op: "or", left, right: this.parseAnd(), pos: left.pos };
    }
    this.depth -= links;
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    let links = 0;
    while (this.at("and")) {
      this.deeper();
      links++;
      this.advance();
      left = { kind: "logical", op: "and", left, right: this.parseNot(), pos: left.pos };
    }
    this.depth -= links;
    return left;
  }

  private parseNot(): Expr {
    if (!this.at("not")) return this.parseComparison();
    const token = this.advance();
    return { kind: "not", operand: this.nested(() => this.parseNot()), pos: token };
  }

  private parseComparison(): Expr {
    const left = this.parseValue();
    const token = this.current;
    const op = comparisonOp(token.type);
    if (op !== null) {
      this.advance();
      const right = this.parseValue();
      return { kind: "compare", op, left, right, opPos: token, pos: left.pos };
    }
    if (token.type === "in" || (token.type === "not" && this.peek().type === "in")) {
      const negated = token.type === "not";
      this.advance();
      if (negated) this.advance();
      return { kind: "in", item: left, set: this.parseValue(), negated, pos: left.pos };
    }
    return left;
  }

  // ------------------------------------------------------------ set level

  /** An expression without comparisons or logic: a number, a set, or a variable expression. */
  parseValue(): Expr {
    let left = this.parseInter();
    let links = 0;
    while (this.at("union", "diff", "symdiff")) {
      this.deeper();
      links++;
      const op = this.advance().type as SetOp;
      left = { kind: "setop", op, left, right: this.parseInter(), pos: left.pos };
    }
    this.depth -= links;
    return left;
  }

  private parseInter(): Expr {
    let left = this.parseCross();
    let links = 0;
    while (this.at("inter")) {
      this.deeper();
      links++;
      this.advance();
      left = { kind: "setop", op: "inter", left, right: this.parseCross(), pos: left.pos };
    }
    this.depth -= links;
    return left;
  }

  private parseCross(): Expr {
    let left = this.parseRange();
    let links = 0;
    while (this.at("cross")) {
      this.deeper();
      links++;
      this.advance();
      left = { kind: "setop", op: "cross", left, right: this.parseRange(), pos: left.pos };
    }
    this.depth -= links;
    return left;
  }

  private parseRange(): Expr {
    const from = this.parseAdditive();
    if (!this.at("..")) return from;
    this.advance();
    const to = this.parseAdditive();
    const step = this.accept("by") ? this.parseAdditive() : null;
    return { kind: "range", from, to, step, pos: from.pos };
  }

  // ------------------------------------------------------------ arithmetic level

  private parseAdditive(): Expr {
    const first = this.parseMultiplicative();
    if (!this.at("+", "-")) return first;
    const terms = [first];
    const signs: (1 | -1)[] = [1];
    while (this.at("+", "-")) {
      signs.push(this.advance().type === "-" ? -1 : 1);
      terms.push(this.parseMultiplicative());
    }
    return { kind: "plus", terms, signs, pos: first.pos };
  }

  protected parseMultiplicative(): Expr {
    let left = this.parseUnary();
    let links = 0;
    while (this.at("*", "/", "mod")) {
      this.deeper();
      links++;
      const token = this.advance();
      const right = this.parseUnary();
      left = { kind: "binary", op: token.type as ArithOp, left, right, opPos: token, pos: left.pos };
    }
    this.depth -= links;
    return left;
  }

  private parseUnary(): Expr {
    if (this.at("-", "+")) {
      const token = this.advance();
      return { kind: "unary", op: token.type as "-" | "+", operand: this.nested(() => this.parseUnary()), pos: token };
    }
    const base = this.parsePrimary();
    if (!this.at("^")) return base;
    const token = this.advance();
    // Right-associative, and the exponent may carry its own sign: 2^-1, 2^3^2 = 2^9.
    return { kind: "binary", op: "^", left: base, right: this.nested(() => this.parseUnary()), opPos: token, pos: base.pos };
  }

  /** Parses one level deeper: a parenthesis, an operand of a unary operator, a sum's body. */
  private nested<T>(parse: () => T): T {
    this.deeper();
    const result = parse();
    this.depth--;
    return result;
  }

  private parsePrimary(): Expr {
    return this.nested(() => this.parsePrimaryAtThisDepth());
  }

  private parsePrimaryAtThisDepth(): Expr {
    const token = this.current;
    switch (token.type) {
      case "number":
        this.advance();
        return { kind: "number", value: token.value, pos: token };
      case "string":
        this.advance();
        return { kind: "string", value: token.text, pos: token };
      case "infinity":
        this.advance();
        return { kind: "infinity", pos: token };
      case "name":
        return this.parseNameRef();
      case "(":
        return this.parseParenthesized();
      case "{":
        return this.parseBraces();
      case "sum":
        this.advance();
        return this.parseIterated("sum", token);
      case "min":
      case "max":
        this.advance();
        if (this.at("{")) return this.parseIterated(token.type, token);
        return { kind: "call", fn: token.type, args: this.parseArguments(), pos: token };
      case "abs":
      case "floor":
      case "ceil":
      case "sqrt":
      case "exp":
      case "log":
      case "card":
        this.advance();
        return { kind: "call", fn: token.type as FunctionName, args: this.parseArguments(), pos: token };
      case "if": {
        this.advance();
        const condition = this.parseExpression();
        this.expect("then");
        const then = this.parseValue();
        const otherwise = this.accept("else") ? this.parseValue() : null;
        return { kind: "if", condition, then, otherwise, pos: token };
      }
      default:
        throw this.unexpected("an expression");
    }
  }

  private parseNameRef(): Expr {
    const token = this.advance();
    if (!this.at("[")) return { kind: "name", name: token.text, indices: null, pos: token };
    this.advance();
    const indices = [this.parseValue()];
    while (this.accept(",")) indices.push(this.parseValue());
    this.expect("]", "`,` or `]`");
    return { kind: "name", name: token.text, indices, pos: token };
  }

  /** `(e)` groups; `(a, b)` is a tuple (an element of a 2-dimensional set). */
  private parseParenthesized(): Expr {
    const open = this.advance();
    const first = this.parseExpression();
    if (!this.at(",")) {
      this.expect(")", "`)`");
      return first;
    }
    const items = [first];
    while (this.accept(",")) items.push(this.parseValue());
    this.expect(")", "`,` or `)`");
    return { kind: "tuple", items, pos: open };
  }

  private parseArguments(): Expr[] {
    this.expect("(", "`(`");
    const args = [this.parseValue()];
    while (this.accept(",")) args.push(this.parseValue());
    this.expect(")", "`,` or `)`");
    return args;
  }

  private parseIterated(op: "sum" | "min" | "max", token: Token): Expr {
    if (!this.at("{")) throw this.unexpected(`\`{\` after \`${op}\``);
    const indexing = this.parseIndexing();
    return { kind: "iterated", op, indexing, body: this.parseMultiplicative(), pos: token };
  }

  /** `{}` and `{1, 2}` are set literals; `{i in I: c}` and `{(a,b) in ARCS}` build a set from an indexing. */
  private parseBraces(): Expr {
    const open = this.current;
    if (this.startsDummyPattern(1)) {
      return { kind: "setbuilder", indexing: this.parseIndexing(), pos: open };
    }
    this.advance();
    const elements: Expr[] = [];
    if (!this.at("}")) {
      elements.push(this.parseValue());
      while (this.accept(",")) elements.push(this.parseValue());
    }
    this.expect("}", "`,` or `}`");
    return { kind: "setlit", elements, pos: open };
  }

  // ------------------------------------------------------------ indexing

  /** True when the tokens from `ahead` on read `name in` or `(name, …, name) in`. */
  protected startsDummyPattern(ahead: number): boolean {
    if (this.peek(ahead).type === "name") return this.peek(ahead + 1).type === "in";
    if (this.peek(ahead).type !== "(") return false;
    let k = ahead + 1;
    for (;;) {
      if (this.peek(k).type !== "name") return false;
      k++;
      if (this.peek(k).type === ")") return this.peek(k + 1).type === "in";
      if (this.peek(k).type !== ",") return false;
      k++;
    }
  }

  parseIndexing(): Indexing {
    const open = this.expect("{", "`{`");
    const entries = [this.parseIndexEntry()];
    // Each entry is one more level of nested loops when the indexing is expanded.
    while (this.accept(",")) {
      this.deeper();
      entries.push(this.parseIndexEntry());
    }
    this.depth -= entries.length - 1;
    const condition = this.accept(":") ? this.parseExpression() : null;
    this.expect("}", condition === null ? "`,`, `:` or `}`" : "`}`");
    return { pos: open, entries, condition };
  }

  private parseIndexEntry(): IndexEntry {
    const pos = this.current;
    if (!this.startsDummyPattern(0)) {
      const [set, setText] = this.parseValueWithText();
      return { pos, dummies: null, set, setText };
    }
    const dummies: NonNullable<IndexEntry["dummies"]> = [];
    if (this.accept("(")) {
      do {
        const name = this.expect("name");
        dummies.push({ name: name.text, pos: name });
      } while (this.accept(","));
      this.expect(")");
    } else {
      const name = this.expect("name");
      dummies.push({ name: name.text, pos: name });
    }
    this.expect("in");
    const [set, setText] = this.parseValueWithText();
    return { pos, dummies, set, setText };
  }
}

function comparisonOp(type: TokenType): CompareOp | null {
  switch (type) {
    case "<":
    case "<=":
    case "==":
    case "!=":
    case ">=":
    case ">":
      return type;
    case "=":
      return "==";
    default:
      return null;
  }
}
