import { Token, tokenizeLp, type LpSection, type LpTokens } from "./lp-tokens.js";
import { CapCounter } from "../limits/model-caps.js";
import { parseInfinityWord } from "./numbers.js";
import { ProblemParseError } from "./parse-error.js";
import type { Constraint, Problem, Term, VariableType } from "./schema.js";
import { canonicalQuadratic, type QuadraticTerm } from "./terms.js";

/**
 * CPLEX LP reader. Conventions:
 * - Variables are numbered in order of first appearance, as every LP reader does.
 * - A variable repeated in one expression is summed (`x + x` is 2x); zero coefficients are dropped;
 *   terms come in variable order (as from an MPS file), not in the order written.
 * - Objective constants (numbers without a variable) add up to the objective constant.
 * - The quadratic part `[ ... ] / 2` is halved (`[ 2 x^2 ] / 2` is x²); without `/ 2` it is taken
 *   as written. Quadratic constraints are not supported.
 * - Bounds: defaults [0, +inf), the last statement wins (CPLEX); `x <= -1` keeps the lower bound 0
 *   (CPLEX and HiGHS), which leaves an empty range and is reported as an error.
 * - A binary variable's bounds are its declared bounds intersected with [0, 1] (so Bounds lines
 *   like `0 <= x <= 1` are harmless, and a binary fixed at 1 stays fixed).
 * - Unnamed constraints get CPLEX's names `c1`, `c2`, … (by position), made unique if taken.
 */

const MAX_NAME_LENGTH = 255;

interface Expression {
  /** Variable index → coefficient, in order of first appearance. */
  linear: Map<number, number>;
  constant: number;
  quadratic: QuadraticTerm[];
}

export class LpReader {
  private readonly tokens: LpTokens;
  private pos = 0;
  private readonly seenSections = new Set<LpSection>();

  private readonly variableIndex = new Map<string, number>();
  private readonly variableNames: string[] = [];
  private readonly lower: number[] = [];
  private readonly upper: number[] = [];
  private readonly boundLine: number[] = [];
  private readonly types: VariableType[] = [];

  private sense: Problem["sense"] = "minimize";
  private objective: Expression = { linear: new Map(), constant: 0, quadratic: [] };
  private readonly constraints: { name: string | null; line: number; terms: Map<number, number>; lb: number | null; ub: number | null }[] = [];

  constructor(
    text: string,
    /** The instance's size caps, counted as variables, rows and terms are read (limits/model-caps.ts). */
    private readonly caps: CapCounter = new CapCounter(),
  ) {
    this.tokens = tokenizeLp(text);
  }

  read(): Problem {
    const { kinds } = this.tokens;
    if (kinds.length > 0 && kinds[0] !== Token.Section) this.fail("expected Minimize or Maximize before the objective");
    while (this.pos < kinds.length) {
      const section = this.tokens.texts[this.pos] as LpSection;
      const line = this.line();
      this.pos++;
      if (section === "end") break;
      const key = section === "maximize" ? "minimize" : section;
      if (this.seenSections.has(key)) this.fail(`a second ${section === "minimize" || section === "maximize" ? "objective" : section} section`, line);
      this.seenSections.add(key);
      switch (section) {
        case "minimize":
        case "maximize":
          this.sense = section;
          this.readObjective();
          break;
        case "constraints":
          this.readConstraints();
          break;
        case "bounds":
          this.readBounds();
          break;
        case "generals":
        case "binaries":
          this.readTypes(section === "generals" ? "integer" : "binary");
          break;
        default:
          this.fail(`the ${section} section is not supported`, line);
      }
    }
    if (this.tokens.endLine === 0) this.fail("the file ends without End (is it complete?)", this.lastLine());
    return this.build();
  }

  private fail(reason: string, line = this.line()): never {
    throw new ProblemParseError("lp", line, reason);
  }

  private line(): number {
    return this.pos < this.tokens.lines.length ? this.tokens.lines[this.pos]! : this.lastLine();
  }

  private lastLine(): number {
    return this.tokens.endLine || (this.tokens.lines.at(-1) ?? 1);
  }

  private kind(offset = 0): Token | undefined {
    return this.tokens.kinds[this.pos + offset];
  }

  private text(offset = 0): string {
    return this.tokens.texts[this.pos + offset] ?? "";
  }

  private atSectionEnd(): boolean {
    return this.pos >= this.tokens.kinds.length || this.kind() === Token.Section;
  }

  private describe(): string {
    return this.atSectionEnd() ? (this.pos >= this.tokens.kinds.length ? "the end of the file" : `"${this.text()}"`) : `"${this.text()}"`;
  }

  private variable(name: string): number {
    let index = this.variableIndex.get(name);
    if (index !== undefined) return index;
    if (name.length > MAX_NAME_LENGTH) this.fail(`variable name longer than ${MAX_NAME_LENGTH} characters`);
    if (!Number.isNaN(parseInfinityWord(name))) this.fail(`"${name}" is infinity, not a variable`);
    this.caps.addVariable(`line ${this.line()}`);
    index = this.variableNames.length;
    this.variableIndex.set(name, index);
    this.variableNames.push(name);
    this.lower.push(0);
    this.upper.push(Infinity);
    this.boundLine.push(0);
    this.types.push("continuous");
    return index;
  }

  /** A name followed by a colon: a label for the objective or a constraint. */
  private label(): string | null {
    if (this.kind() === Token.Name && this.kind(1) === Token.Colon) {
      const name = this.text();
      this.pos += 2;
      return name;
    }
    return null;
  }

  /** Optional signs, then a number or an infinity word: the value, or null (position unchanged) if there is none. */
  private signedValue(): number | null {
    const start = this.pos;
    let sign = 1;
    while (this.kind() === Token.Plus || this.kind() === Token.Minus) {
      if (this.kind() === Token.Minus) sign = -sign;
      this.pos++;
    }
    if (this.kind() === Token.Number) {
      const value = sign * this.tokens.values[this.pos++]!;
      return value === 0 ? 0 : value;
    }
    if (this.kind() === Token.Name) {
      const infinite = parseInfinityWord(this.text());
      if (!Number.isNaN(infinite)) {
        this.pos++;
        return sign * infinite;
      }
    }
    this.pos = start;
    return null;
  }

  private expectValue(what: string): number {
    const value = this.signedValue();
    if (value === null) this.fail(`expected a number for ${what}, found ${this.describe()}`);
    return value;
  }

  /**
   * A linear expression, plus (in the objective) constants and a bracketed quadratic part. Stops
   * before a sense, a section or the end; the caller decides whether that is where it should stop.
   */
  private readExpression({ inObjective }: { inObjective: boolean }): Expression {
    const expression: Expression = { linear: new Map(), constant: 0, quadratic: [] };
    let first = true;
    while (!this.atSectionEnd() && this.kind() !== Token.Sense) {
      // `name:` starts the next constraint (after the open-ended form `2 <= x`).
      if (!first && this.kind() === Token.Name && this.kind(1) === Token.Colon) break;
      if (this.kind() === Token.Implies) this.fail("indicator constraints (->) are not supported");
      let sign = 1;
      let signed = false;
      while (this.kind() === Token.Plus || this.kind() === Token.Minus) {
        if (this.kind() === Token.Minus) sign = -sign;
        signed = true;
        this.pos++;
      }
      if (!first && !signed) this.fail(`expected + or - before ${this.describe()}`);
      first = false;
      if (this.kind() === Token.OpenBracket) {
        if (!inObjective) this.fail("quadratic constraints are not supported");
        this.readQuadratic(sign, expression.quadratic);
        continue;
      }
      let coef = sign;
      if (this.kind() === Token.Number) {
        coef *= this.tokens.values[this.pos++]!;
        if (this.kind() !== Token.Name) {
          if (!inObjective) this.fail(`a constant (${coef}) on the left of a constraint; move it to the right-hand side`, this.tokens.lines[this.pos - 1]);
          expression.constant += coef;
          continue;
        }
      }
      if (this.kind() !== Token.Name) this.fail(`expected a variable, found ${this.describe()}`);
      const index = this.variable(this.text());
      this.pos++;
      expression.linear.set(index, (expression.linear.get(index) ?? 0) + coef);
    }
    return expression;
  }

  /** `[ a x ^ 2 + b x * y ... ]`, then `/ 2` in the objective (which halves it). */
  private readQuadratic(sign: number, into: QuadraticTerm[]): void {
    const open = this.line();
    this.pos++;
    const terms: QuadraticTerm[] = [];
    let first = true;
    while (this.kind() !== Token.CloseBracket) {
      if (this.atSectionEnd()) this.fail("a quadratic part opened with [ is not closed with ]", open);
      let coef = sign;
      let signed = false;
      while (this.kind() === Token.Plus || this.kind() === Token.Minus) {
        if (this.kind() === Token.Minus) coef = -coef;
        signed = true;
        this.pos++;
      }
      if (!first && !signed) this.fail(`expected + or - before ${this.describe()}`);
      first = false;
      if (this.kind() === Token.Number) coef *= this.tokens.values[this.pos++]!;
      if (this.kind() !== Token.Name) this.fail(`expected a variable in the quadratic part, found ${this.describe()}`);
      const var1 = this.variableNames[this.variable(this.text())]!;
      this.pos++;
      if (this.kind() === Token.Power) {
        this.pos++;
        if (this.kind() !== Token.Number || this.tokens.values[this.pos] !== 2) this.fail(`only squares (^ 2) are allowed, found ^ ${this.describe()}`);
        this.pos++;
        terms.push({ var1, var2: var1, coef });
      } else if (this.kind() === Token.Times) {
        this.pos++;
        if (this.kind() !== Token.Name) this.fail(`expected a variable after *, found ${this.describe()}`);
        const var2 = this.variableNames[this.variable(this.text())]!;
        this.pos++;
        terms.push({ var1, var2, coef });
      } else {
        this.fail(`expected ^ 2 or * after "${var1}" in the quadratic part`);
      }
    }
    this.pos++;
    let scale = 1;
    if (this.kind() === Token.Slash) {
      this.pos++;
      if (this.kind() !== Token.Number || this.tokens.values[this.pos] !== 2) this.fail(`a quadratic part is divided by 2, found / ${this.describe()}`);
      this.pos++;
      scale = 0.5;
    }
    this.caps.addNonzeros(terms.length, `line ${open}`);
    for (const t of terms) into.push({ ...t, coef: t.coef * scale });
  }

  private readObjective(): void {
    this.label();
    this.objective = this.readExpression({ inObjective: true });
    if (!this.atSectionEnd()) this.fail(`unexpected ${this.describe()} in the objective`);
  }

  private readConstraints(): void {
    while (!this.atSectionEnd()) {
      const line = this.line();
      const name = this.label();
      if (name !== null && name.length > MAX_NAME_LENGTH) this.fail(`constraint name longer than ${MAX_NAME_LENGTH} characters`, line);
      let lb: number | null = null;
      let ub: number | null = null;
      // Ranged form `lo <= expr <= hi` (or `hi >= expr >= lo`) starts with a value and a sense.
      const start = this.pos;
      const leftValue = this.signedValue();
      let leftSense: string | null = null;
      if (leftValue !== null && this.kind() === Token.Sense) {
        leftSense = this.text();
        this.pos++;
      } else {
        this.pos = start;
      }
      const expression = this.readExpression({ inObjective: false });
      if (expression.linear.size === 0 && this.pos === start) this.fail(`expected a constraint, found ${this.describe()}`);
      if (this.kind() !== Token.Sense) {
        if (leftSense === null) this.fail(`expected <=, >= or = after the constraint's expression, found ${this.describe()}`);
      } else {
        const sense = this.text();
        this.pos++;
        const value = this.expectValue("the right-hand side");
        [lb, ub] = applySense(sense, value, this.fail.bind(this));
      }
      if (leftSense !== null) {
        // `v <= expr` is `expr >= v`: mirror the sense.
        const [l, u] = applySense(mirrorSense(leftSense), leftValue!, this.fail.bind(this));
        if (lb !== null && l !== null) this.fail("a ranged constraint needs one lower and one upper side (lo <= expr <= hi)", line);
        if (ub !== null && u !== null) this.fail("a ranged constraint needs one lower and one upper side (lo <= expr <= hi)", line);
        lb ??= l;
        ub ??= u;
      }
      if (lb !== null && ub !== null && lb > ub) this.fail(`constraint ${name ?? ""} has lower side ${lb} above upper side ${ub}`.replace("  ", " "), line);
      this.caps.addConstraint(`line ${line}`);
      this.caps.addNonzeros(expression.linear.size, `line ${line}`);
      this.constraints.push({ name, line, terms: expression.linear, lb, ub });
    }
  }

  private setBound(index: number, { side, value, line }: { side: "lower" | "upper"; value: number; line: number }): void {
    if (side === "lower" && value === Infinity) this.fail(`lower bound +inf for "${this.variableNames[index]}"`, line);
    if (side === "upper" && value === -Infinity) this.fail(`upper bound -inf for "${this.variableNames[index]}"`, line);
    (side === "lower" ? this.lower : this.upper)[index] = value;
    this.boundLine[index] = line;
  }

  private applyBound(index: number, { sense, value, line }: { sense: string; value: number; line: number }): void {
    if (sense === "<=") this.setBound(index, { side: "upper", value, line });
    else if (sense === ">=") this.setBound(index, { side: "lower", value, line });
    else {
      if (!Number.isFinite(value)) this.fail(`"${this.variableNames[index]}" fixed at an infinite value`, line);
      this.setBound(index, { side: "lower", value, line });
      this.setBound(index, { side: "upper", value, line });
    }
  }

  private readBounds(): void {
    while (!this.atSectionEnd()) {
      const line = this.line();
      if (this.kind() === Token.Name && this.kind(1) === Token.Name && this.text(1).toLowerCase() === "free") {
        const index = this.variable(this.text());
        this.pos += 2;
        this.setBound(index, { side: "lower", value: -Infinity, line });
        this.setBound(index, { side: "upper", value: Infinity, line });
        continue;
      }
      const leftValue = this.signedValue();
      if (leftValue !== null) {
        // `v <= x`, `v >= x` or `v = x`, optionally followed by `<= w` (`>= w` after `>=`).
        if (this.kind() !== Token.Sense) this.fail(`expected <=, >= or = after ${leftValue} in a bound, found ${this.describe()}`);
        const leftSense = this.text();
        this.pos++;
        const index = this.boundVariable();
        this.applyBound(index, { sense: mirrorSense(leftSense), value: leftValue, line });
        if (this.kind() === Token.Sense) {
          if (leftSense === "=" || this.text() !== leftSense) this.fail("a double bound reads lo <= x <= hi (or hi >= x >= lo)");
          const rightSense = this.text();
          this.pos++;
          this.applyBound(index, { sense: rightSense, value: this.expectValue(`the bound of "${this.variableNames[index]}"`), line });
        }
        continue;
      }
      const index = this.boundVariable();
      if (this.kind() !== Token.Sense) this.fail(`expected <=, >=, = or "free" after "${this.variableNames[index]}" in a bound, found ${this.describe()}`);
      const sense = this.text();
      this.pos++;
      this.applyBound(index, { sense, value: this.expectValue(`the bound of "${this.variableNames[index]}"`), line });
    }
  }

  private boundVariable(): number {
    if (this.kind() !== Token.Name || !Number.isNaN(parseInfinityWord(this.text()))) this.fail(`expected a variable in a bound, found ${this.describe()}`);
    return this.variable(this.tokens.texts[this.pos++]!);
  }

  private readTypes(type: "integer" | "binary"): void {
    while (!this.atSectionEnd()) {
      if (this.kind() !== Token.Name) this.fail(`expected a variable name, found ${this.describe()}`);
      const index = this.variable(this.tokens.texts[this.pos++]!);
      // A variable both general and binary is binary (HiGHS reads Binaries after Generals).
      if (this.types[index] !== "binary") this.types[index] = type;
    }
  }

  private build(): Problem {
    if (this.variableNames.length === 0) this.fail("no variables: a problem needs at least one", this.lastLine());
    // Terms in variable order, as the MPS reader's column-major reading gives them: equivalent LP
    // and MPS files read to equal problems.
    const terms = (linear: Map<number, number>): Term[] => {
      const indices = [...linear.keys()].filter((index) => linear.get(index) !== 0);
      let sorted = true;
      for (let k = 1; k < indices.length && sorted; k++) sorted = indices[k - 1]! < indices[k]!;
      if (!sorted) indices.sort((a, b) => a - b);
      return indices.map((index) => ({ var: this.variableNames[index]!, coef: linear.get(index)! }));
    };
    const variables = this.variableNames.map((name, j) => {
      let lb = this.lower[j]!;
      let ub = this.upper[j]!;
      const type = this.types[j]!;
      if (type === "binary") {
        lb = Math.max(lb, 0);
        ub = Math.min(ub, 1);
      }
      if (lb > ub) this.fail(`variable "${name}" has lower bound ${lb} above its upper bound ${ub}`, this.boundLine[j] || this.lastLine());
      return { name, lb: lb === -Infinity ? null : lb, ub: ub === Infinity ? null : ub, type };
    });
    const taken = new Set(this.constraints.map((c) => c.name).filter((n): n is string => n !== null));
    const seen = new Set<string>();
    const constraints: Constraint[] = this.constraints.map((c, i) => {
      let name = c.name;
      if (name === null) {
        name = `c${i + 1}`;
        for (let k = 1; taken.has(name); k++) name = `c${i + 1}_${k}`;
        taken.add(name);
      }
      if (seen.has(name)) this.fail(`constraint name "${name}" is used twice`, c.line);
      seen.add(name);
      return { name, terms: terms(c.terms), lb: c.lb, ub: c.ub };
    });
    const problem: Problem = {
      name: (this.tokens.problemName ?? "problem").slice(0, MAX_NAME_LENGTH),
      sense: this.sense,
      variables,
      objective: { constant: this.objective.constant === 0 ? 0 : this.objective.constant, terms: terms(this.objective.linear) },
      constraints,
    };
    if (this.objective.quadratic.length > 0) {
      const quadratic = canonicalQuadratic(this.objective.quadratic, this.variableIndex);
      if (quadratic.length > 0) problem.objective.quadratic = quadratic;
    }
    return problem;
  }
}

/** Row bounds from `expr sense value`; an infinite value leaves that side open. */
function applySense(sense: string, value: number, fail: (reason: string) => never): [number | null, number | null] {
  if (sense === "<=") {
    if (value === -Infinity) fail("a constraint <= -inf can never hold");
    return [null, value === Infinity ? null : value];
  }
  if (sense === ">=") {
    if (value === Infinity) fail("a constraint >= +inf can never hold");
    return [value === -Infinity ? null : value, null];
  }
  if (!Number.isFinite(value)) fail("a constraint = ±inf can never hold");
  return [value, value];
}

/** The sense seen from the other side: `v <= x` is `x >= v`. */
function mirrorSense(sense: string): string {
  return sense === "<=" ? ">=" : sense === ">=" ? "<=" : "=";
}
