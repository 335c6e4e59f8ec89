import type { ConstraintDecl, Declaration, ModelAst, ObjectiveDecl, ParamCheckOp, ParamDecl, Relation, SetDecl, VarDecl } from "./ast.js";
import { JModelError, problemAt, syntaxError, type JModelProblem } from "./errors.js";
import { describeToken, SUBJECT_TO, tokenize, type Token, type TokenType } from "./lexer.js";
import { ExpressionParser } from "./parse-expression.js";

/**
 * The statement level of the JModel parser. A syntax error abandons its statement only: the parser
 * skips to the next `;` or declaration keyword and goes on, so one pass reports every broken statement.
 */

const STATEMENT_STARTS: TokenType[] = ["set", "param", "var", "minimize", "maximize", SUBJECT_TO, "subject"];

export interface ParseResult {
  ast: ModelAst;
  /** Syntax problems (and attribute conflicts found while parsing), in source order. */
  problems: JModelProblem[];
}

/** Parses as much as it can; never throws for a user error. */
export function parseWithRecovery(source: string): ParseResult {
  let tokens: Token[];
  try {
    tokens = tokenize(source);
  } catch (error) {
    if (!(error instanceof JModelError)) throw error;
    // A lexical error leaves no reliable token stream: report it alone.
    return { ast: { declarations: [], brokenNames: [], brokenObjective: true, end: { line: 1, column: 1 }, source }, problems: [error.toProblem()] };
  }
  return new StatementParser(tokens, source).parseModel();
}

class StatementParser extends ExpressionParser {
  private readonly problems: JModelProblem[] = [];
  private readonly brokenNames: string[] = [];
  private brokenObjective = false;
  /** Name of the statement being parsed, remembered in case the statement breaks. */
  private pendingName: string | null = null;

  constructor(tokens: Token[], source: string) {
    super(tokens, source);
  }

  parseModel(): ParseResult {
    const declarations: Declaration[] = [];
    while (!this.at("eof")) {
      this.pendingName = null;
      const startsObjective = this.at("minimize", "maximize");
      const statementStart = this.index;
      this.depth = 0;
      try {
        declarations.push(this.parseStatement());
      } catch (error) {
        if (!(error instanceof JModelError)) throw error;
        this.problems.push(error.toProblem());
        if (this.pendingName !== null) this.brokenNames.push(this.pendingName);
        if (startsObjective) this.brokenObjective = true;
        this.skipToNextStatement(statementStart);
      }
    }
    const eof = this.current;
    return {
      ast: {
        declarations,
        brokenNames: this.brokenNames,
        brokenObjective: this.brokenObjective,
        end: { line: eof.line, column: eof.column },
        source: this.source,
      },
      problems: this.problems,
    };
  }

  private skipToNextStatement(statementStart: number): void {
    // Move at least one token, so a statement that fails on its first token cannot loop forever; but
    // stop at the next declaration keyword (a forgotten `;` must not swallow the statement after it).
    if (this.index === statementStart && !this.at("eof", ";")) this.advance();
    while (!this.at("eof", ";", ...STATEMENT_STARTS)) this.advance();
    this.accept(";");
  }

  private parseStatement(): Declaration {
    switch (this.current.type) {
      case "set":
        return this.parseSet();
      case "param":
        return this.parseParam();
      case "var":
        return this.parseVar();
      case "minimize":
      case "maximize":
        return this.parseObjective();
      case SUBJECT_TO:
      case "subject":
        return this.parseConstraint();
      default: {
        const hint = this.at("name") && this.peek().type === ":" ? " (a constraint starts with `subject to` or `s.t.`)" : "";
        throw this.unexpected(`a declaration (set, param, var, minimize, maximize, subject to)${hint}`);
      }
    }
  }

  private declaredName(what: string): Token {
    const token = this.expect("name", `a ${what} name`);
    this.pendingName = token.text;
    return token;
  }

  private endStatement(): void {
    if (!this.accept(";")) throw this.missingSemicolon("`;`");
  }

  /**
   * The error for a statement that stops where it should end. When the next token starts a new
   * statement, the `;` was most likely forgotten: point just after the last token, not at the next line.
   */
  private missingSemicolon(expected: string): JModelError {
    const previous = this.tokens[this.index - 1];
    if (previous !== undefined && this.at("eof", ...STATEMENT_STARTS)) {
      const after = { line: previous.line, column: previous.column + (previous.end - previous.start) };
      return syntaxError("unexpected_token", after, `expected \`;\` after ${describeToken(previous)}`);
    }
    return this.unexpected(expected);
  }

  private attributeTwice(decl: { name: string }, attribute: string, at: Token): void {
    this.problems.push(
      problemAt("semantic", { code: "conflicting_attributes", at, message: `\`${decl.name}\` is given ${attribute} twice`, symbol: decl.name }),
    );
  }

  /** A set's or parameter's `:= value` or `default value` (each at most once); false when neither follows. */
  private acceptValueAttribute(decl: SetDecl | ParamDecl, token: Token): boolean {
    if (this.accept(":=")) {
      if (decl.definition !== null) this.attributeTwice(decl, "`:=`", token);
      [decl.definition, decl.definitionText] = this.parseValueWithText();
      return true;
    }
    if (this.accept("default")) {
      if (decl.defaultValue !== null) this.attributeTwice(decl, "`default`", token);
      [decl.defaultValue, decl.defaultText] = this.parseValueWithText();
      return true;
    }
    return false;
  }

  // ------------------------------------------------------------ set

  private parseSet(): SetDecl {
    this.advance();
    const name = this.declaredName("set");
    if (this.at("{")) {
      throw this.unexpected("`dimen`, `within`, `:=`, `default` or `;` (indexed sets are not supported: use a set of tuples)");
    }
    const decl: SetDecl = {
      kind: "set",
      name: name.text,
      pos: name,
      dimen: null,
      within: null,
      definition: null,
      definitionText: null,
      defaultValue: null,
      defaultText: null,
    };
    while (!this.at(";")) {
      const token = this.current;
      if (this.accept("dimen")) {
        const value = this.expect("number", "a dimension (a whole number)");
        if (!Number.isInteger(value.value) || value.value < 1) {
          throw this.unexpected("a dimension (a whole number, 1 or more)", value);
        }
        if (decl.dimen !== null) this.attributeTwice(decl, "`dimen`", token);
        decl.dimen = { value: value.value, pos: value };
      } else if (this.accept("within")) {
        if (decl.within !== null) this.attributeTwice(decl, "`within`", token);
        decl.within = this.parseValue();
      } else if (!this.acceptValueAttribute(decl, token)) {
        throw this.missingSemicolon("`dimen`, `within`, `:=`, `default` or `;`");
      }
      this.accept(",");
    }
    this.endStatement();
    return decl;
  }

  // ------------------------------------------------------------ param

  private parseParam(): ParamDecl {
    this.advance();
    const name = this.declaredName("parameter");
    const decl: ParamDecl = {
      kind: "param",
      name: name.text,
      pos: name,
      indexing: this.at("{") ? this.parseIndexing() : null,
      integer: false,
      binary: false,
      checks: [],
      definition: null,
      definitionText: null,
      defaultValue: null,
      defaultText: null,
    };
    while (!this.at(";")) {
      const token = this.current;
      if (this.accept("integer")) decl.integer = true;
      else if (this.accept("binary")) decl.binary = true;
      else if (this.at(">=", "<=", ">", "<", "!=")) {
        this.advance();
        decl.checks.push({ op: token.type as ParamCheckOp, value: this.parseValue(), pos: token });
      } else if (!this.acceptValueAttribute(decl, token)) {
        if (this.at("=", "==")) throw this.unexpected("`:=` to give the parameter its value in the model (or `default`)");
        throw this.missingSemicolon("`integer`, `binary`, a comparison, `:=`, `default` or `;`");
      }
      this.accept(",");
    }
    this.endStatement();
    return decl;
  }

  // ------------------------------------------------------------ var

  private parseVar(): VarDecl {
    this.advance();
    const name = this.declaredName("variable");
    const decl: VarDecl = {
      kind: "var",
      name: name.text,
      pos: name,
      indexing: this.at("{") ? this.parseIndexing() : null,
      integer: false,
      binary: false,
      lower: null,
      upper: null,
      fixed: null,
    };
    while (!this.at(";")) {
      const token = this.current;
      if (this.accept("integer")) decl.integer = true;
      else if (this.accept("binary")) decl.binary = true;
      else if (this.accept(">=")) {
        if (decl.lower !== null) this.attributeTwice(decl, "a lower bound", token);
        decl.lower = this.parseValue();
      } else if (this.accept("<=")) {
        if (decl.upper !== null) this.attributeTwice(decl, "an upper bound", token);
        decl.upper = this.parseValue();
      } else if (this.accept("==") || this.accept("=")) {
        if (decl.fixed !== null) this.attributeTwice(decl, "a fixed value", token);
        decl.fixed = this.parseValue();
      } else if (this.at(":=")) {
        throw this.unexpected("`>=`, `<=` or `==` (variables take bounds, not values)");
      } else {
        throw this.missingSemicolon("`integer`, `binary`, `>=`, `<=`, `==` or `;`");
      }
      this.accept(",");
    }
    this.endStatement();
    return decl;
  }

  // ------------------------------------------------------------ objective and constraints

  private parseObjective(): ObjectiveDecl {
    const sense = this.advance().type as "minimize" | "maximize";
    const name = this.declaredName("objective");
    this.expect(":", "`:`");
    const expr = this.parseExpression();
    this.endStatement();
    return { kind: "objective", name: name.text, pos: name, sense, expr };
  }

  private parseConstraint(): ConstraintDecl {
    const keyword = this.advance();
    if (keyword.type === "subject") {
      const to = this.current;
      if (to.type !== "name" || to.text !== "to") throw this.unexpected("`to` after `subject`");
      this.advance();
    }
    const name = this.declaredName("constraint");
    const indexing = this.at("{") ? this.parseIndexing() : null;
    this.expect(":", indexing === null ? "`{` or `:`" : "`:`");
    const left = this.parseValue();
    const first = this.parseRelation();
    const second = this.parseValue();
    let decl: ConstraintDecl;
    if (this.at("<=", ">=", "==", "=", "<", ">")) {
      const relationToken = this.current;
      const relation = this.parseRelation().relation;
      if (first.relation === "==" || relation !== first.relation) {
        throw this.unexpected("`;` (a ranged constraint is `lo <= expr <= hi` or `hi >= expr >= lo`)", relationToken);
      }
      decl = {
        kind: "constraint",
        name: name.text,
        pos: name,
        indexing,
        left,
        relation: first.relation,
        relationPos: first.pos,
        middle: second,
        right: this.parseValue(),
      };
    } else {
      decl = {
        kind: "constraint",
        name: name.text,
        pos: name,
        indexing,
        left,
        relation: first.relation,
        relationPos: first.pos,
        middle: null,
        right: second,
      };
    }
    this.endStatement();
    return decl;
  }

  private parseRelation(): { relation: Relation; pos: Token } {
    const token = this.current;
    switch (token.type) {
      case "<=":
      case ">=":
      case "==":
        this.advance();
        return { relation: token.type, pos: token };
      case "=":
        this.advance();
        return { relation: "==", pos: token };
      case "<":
      case ">":
        throw this.unexpected("`<=`, `>=` or `==` (strict inequalities cannot be modelled)");
      default:
        throw this.unexpected("`<=`, `>=` or `==`");
    }
  }
}
