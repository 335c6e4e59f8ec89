import { canonicalQuadratic, type QuadraticTerm } from "./terms.js";
import { CapCounter } from "../limits/model-caps.js";
import { parseDecimal, parseInfinityWord } from "./numbers.js";
import { ProblemParseError } from "./parse-error.js";
import type { Constraint, Problem, Term, Variable, VariableType } from "./schema.js";

/**
 * MPS reader, fixed and free format. Conventions (where solvers differ, the choice is named):
 * - The first N row is the objective; further N rows are free rows and are dropped, entries too.
 * - An RHS on the objective row is the objective constant with the opposite sign (constant = −RHS),
 *   as HiGHS, CBC and SCIP read it (glpsol takes the other sign; see SOLVER-NOTES).
 * - RANGES: L row [rhs − |R|, rhs], G row [rhs, rhs + |R|], E row [rhs + R, rhs] if R < 0 and
 *   [rhs, rhs + R] if R ≥ 0. Ranges on N rows are ignored, as HiGHS does.
 * - Integer columns (between MARKER INTORG/INTEND) with no BOUNDS entry at all are [0, 1], as HiGHS
 *   (and the original IBM MPSX) reads them; any bound entry for the column lifts that default.
 * - UP with a negative value on a column whose lower bound has not been given makes the lower bound
 *   −inf (HiGHS's fixed-format reader, CBC and SCIP do this; HiGHS 1.15's free reader and glpsol keep
 *   0). Our writer always writes both bounds of such a column, so no reader has to guess.
 * - QUADOBJ lists one triangle of Q and QMATRIX all of it, for an objective c'x + ½ x'Qx. So a
 *   QUADOBJ entry (i, j, v) is v·xi·xj off the diagonal and (v/2)·xi² on it; a QMATRIX entry is
 *   (v/2)·xi·xj, its mirror image supplying the other half.
 * Where files are ambiguous and solvers pick different readings (a bound, RHS, range or matrix entry
 * given twice, a column split in two), this reader refuses with the line rather than pick one.
 */

export type MpsFormat = "fixed" | "free";

type Section = "start" | "objsense" | "rows" | "columns" | "rhs" | "ranges" | "bounds" | "quadobj" | "qmatrix";

const OBJECTIVE_ROW = -1;
const DROPPED_ROW = -2;
const MAX_NAME_LENGTH = 255;

const SECTIONS = new Set(["NAME", "OBJSENSE", "OBJSENCE", "ROWS", "COLUMNS", "RHS", "RANGES", "BOUNDS", "QUADOBJ", "QMATRIX", "ENDATA"]);
const UNSUPPORTED_SECTIONS = new Set([
  "QSECTION",
  "QCMATRIX",
  "CSECTION",
  "SOS",
  "SETS",
  "INDICATORS",
  "GENCONS",
  "PWLOBJ",
  "PWLNAM",
  "PWLCON",
  "DELAYEDROWS",
  "MODELCUTS",
  "USERCUTS",
  "LAZYCONS",
  "OBJNAME",
  "BRANCH",
]);
const BOUND_TYPES_WITHOUT_VALUE = new Set(["FR", "MI", "PL", "BV"]);

function fieldsFound(count: number): string {
  return `found ${count} field${count === 1 ? "" : "s"}`;
}

/** Space, tab or carriage return. */
function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

/** Whitespace-separated words of `line` into `out`; returns how many there are (may exceed out's length). */
function splitWords(line: string, out: string[]): number {
  let count = 0;
  let i = 0;
  const length = line.length;
  while (i < length) {
    if (isBlank(line.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < length && !isBlank(line.charCodeAt(i))) i++;
    if (count < out.length) out[count] = line.slice(start, i);
    count++;
  }
  return count;
}

export class MpsReader {
  private lineNumber = 0;
  private section: Section = "start";
  private readonly seenSections = new Set<string>();
  /** MPS fields 1–6 of the current data line (type code, name, name, number, name, number). */
  private readonly field = ["", "", "", "", "", ""];
  private readonly words = ["", "", "", "", "", "", "", ""];

  private problemName = "";
  private sense: Problem["sense"] = "minimize";
  private hasObjectiveRow = false;
  private objectiveConstant = 0;
  private objectiveConstantLine = 0;
  private readonly objectiveTerms: Term[] = [];

  private readonly rowIndex = new Map<string, number>();
  private readonly rowNames: string[] = [];
  private readonly rowTypes: string[] = [];
  private readonly rowLines: number[] = [];
  private readonly rowTerms: Term[][] = [];
  private rowRhs = new Float64Array(0);
  private rowRhsLine = new Int32Array(0);
  private rowRange = new Float64Array(0);
  private rowRangeLine = new Int32Array(0);

  private readonly columnIndex = new Map<string, number>();
  private readonly columnNames: string[] = [];
  private readonly columnLines: number[] = [];
  private readonly columnTypes: VariableType[] = [];
  private readonly columnFromMarker: boolean[] = [];
  private readonly lower: number[] = [];
  private readonly upper: number[] = [];
  private readonly lowerLine: number[] = [];
  private readonly upperLine: number[] = [];
  private currentColumn = -1;
  private inIntegerBlock = false;
  /** Column index of the last entry in each row (and the objective), to catch a repeated entry. */
  private rowLastColumn = new Int32Array(0);
  private objectiveLastColumn = -1;

  private readonly quadratic: QuadraticTerm[] = [];

  constructor(
    private readonly text: string,
    private readonly format: MpsFormat,
    /** The instance's size caps, counted as columns, rows and entries are read (limits/model-caps.ts). */
    private readonly caps: CapCounter = new CapCounter(),
  ) {}

  read(): Problem {
    const text = this.text;
    let start = 0;
    let ended = false;
    while (start <= text.length && !ended) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      this.lineNumber++;
      const line = end > start && text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
      start = end + 1;
      ended = this.readLine(line);
    }
    if (!ended) this.fail("the file ends without ENDATA (is it complete?)");
    return this.build();
  }

  private fail(reason: string, line = this.lineNumber): never {
    throw new ProblemParseError("mps", line, reason);
  }

  /** Returns true at ENDATA. */
  private readLine(line: string): boolean {
    if (line.length === 0) return false;
    const first = line.charCodeAt(0);
    if (first === 42 /* * */) return false;
    if (!isBlank(first)) {
      const count = splitWords(line, this.words);
      const keyword = this.words[0]!.toUpperCase();
      if (SECTIONS.has(keyword)) return this.startSection(keyword, count);
      if (UNSUPPORTED_SECTIONS.has(keyword)) this.fail(`the ${keyword} section is not supported`);
      // Free MPS allows data lines to start in column 1; fixed MPS keeps column 1 for section names.
      if (this.format === "fixed") this.fail(`unknown section "${this.words[0]}"`);
    } else if (line.trim().length === 0) {
      return false;
    }
    this.readDataLine(line);
    return false;
  }

  private startSection(keyword: string, count: number): boolean {
    if (keyword === "ENDATA") return true;
    const name = keyword === "OBJSENCE" ? "OBJSENSE" : keyword;
    if (this.seenSections.has(name)) this.fail(`a second ${name} section`);
    this.seenSections.add(name);
    const needsColumns = name === "RHS" || name === "RANGES" || name === "BOUNDS" || name === "QUADOBJ" || name === "QMATRIX";
    if (name === "COLUMNS" && !this.seenSections.has("ROWS")) this.fail("COLUMNS before ROWS");
    if (needsColumns && !this.seenSections.has("COLUMNS")) this.fail(`${name} before COLUMNS`);
    if (name === "ROWS" && this.seenSections.has("COLUMNS")) this.fail("ROWS after COLUMNS");
    if (this.section === "columns") this.endColumns();
    switch (name) {
      case "NAME":
        // The first word, as HiGHS reads it: netlib files add "SIZE: N=…" and CoinMpsIO adds "FREE".
        this.problemName = count > 1 ? this.words[1]! : "";
        this.section = "start";
        return false;
      case "OBJSENSE":
        this.section = "objsense";
        if (count > 2) this.fail("OBJSENSE takes one word, MAX or MIN");
        if (count === 2) this.readSense(this.words[1]!);
        return false;
      case "ROWS":
        this.section = "rows";
        return false;
      case "COLUMNS":
        this.startColumns();
        return false;
      default:
        this.section = name.toLowerCase() as Section;
        return false;
    }
  }

  private readSense(word: string): void {
    const upper = word.toUpperCase();
    if (upper === "MAX" || upper === "MAXIMIZE" || upper === "MAXIMISE") this.sense = "maximize";
    else if (upper === "MIN" || upper === "MINIMIZE" || upper === "MINIMISE") this.sense = "minimize";
    else this.fail(`unknown objective sense "${word}" (expected MAX or MIN)`);
  }

  private readDataLine(line: string): void {
    switch (this.section) {
      case "start":
        return this.fail("data before the first section (expected NAME or ROWS)");
      case "objsense": {
        const count = splitWords(line, this.words);
        if (count !== 1) this.fail("OBJSENSE takes one word, MAX or MIN");
        return this.readSense(this.words[0]!);
      }
      case "rows":
        return this.readRow(line);
      case "columns":
        return this.readColumnLine(line);
      case "rhs":
      case "ranges":
        return this.readRhsOrRange(line, this.section);
      case "bounds":
        return this.readBound(line);
      case "quadobj":
      case "qmatrix":
        return this.readQuadratic(line, this.section);
    }
  }

  /**
   * Fills `field` from a data line. Fixed format takes names from their columns (so they may hold
   * spaces); a line with tabs has no reliable columns and is read as words, like free format.
   */
  private readFields(line: string, layout: "typed" | "entries" | "rhs" | "bounds"): number {
    const f = this.field;
    if (this.format === "fixed" && line.indexOf("\t") === -1) {
      f[0] = line.slice(1, 3).trim();
      f[1] = line.slice(4, 12).trim();
      f[2] = line.slice(14, 22).trim();
      // Numbers may spill past their 12 columns; take everything up to the next name field.
      f[3] = line.slice(24, 39).trim();
      f[4] = line.slice(39, 47).trim();
      f[5] = line.slice(49).trim();
      return -1;
    }
    const w = this.words;
    const count = splitWords(line, w);
    const word = (i: number) => (i < count ? w[i]! : "");
    let type = "";
    let offset = 0; // index in `w` of MPS field 2
    if (layout === "typed" || layout === "bounds") {
      type = word(0);
      offset = 1;
    }
    if (layout === "rhs" && count % 2 === 0) {
      // The RHS/RANGES set name is optional in free format: an even count means it is absent.
      offset = -1;
    } else if (layout === "bounds") {
      const withoutValue = BOUND_TYPES_WITHOUT_VALUE.has(type.toUpperCase());
      // Without a set name: "UP x 4" or "FR x"; "BV x 1" also happens (a value BV ignores).
      const noSetName = count === 2 || (count === 3 && (!withoutValue || (!this.columnIndex.has(w[2]!) && this.columnIndex.has(w[1]!))));
      if (noSetName) offset = 0;
    }
    f[0] = type;
    f[1] = offset < 0 ? "" : word(offset);
    f[2] = word(offset + 1);
    f[3] = word(offset + 2);
    f[4] = word(offset + 3);
    f[5] = word(offset + 4);
    return count;
  }

  private checkName(name: string, what: string): void {
    if (name.length === 0) this.fail(`missing ${what} name`);
    if (name.length > MAX_NAME_LENGTH) this.fail(`${what} name longer than ${MAX_NAME_LENGTH} characters`);
  }

  private number(token: string, what: string, { allowInfinite = false }: { allowInfinite?: boolean } = {}): number {
    if (token.length === 0) this.fail(`missing ${what}`);
    const value = parseDecimal(token);
    if (!Number.isNaN(value) && Number.isFinite(value)) return value;
    if (allowInfinite) {
      const infinite = parseInfinityWord(token);
      if (!Number.isNaN(infinite)) return infinite;
    }
    return this.fail(`${what} "${token}" is not a ${allowInfinite ? "number or ±Inf" : "finite number"}`);
  }

  private readRow(line: string): void {
    const count = this.readFields(line, "typed");
    if (count !== -1 && count !== 2) this.fail(`a ROWS line has a type and a name (${fieldsFound(count)})`);
    const type = this.field[0]!.toUpperCase();
    const name = this.field[1]!;
    this.checkName(name, "row");
    const previous = this.rowIndex.get(name);
    if (previous !== undefined) this.fail(`row "${name}" is declared twice`);
    if (type === "N") {
      this.rowIndex.set(name, this.hasObjectiveRow ? DROPPED_ROW : OBJECTIVE_ROW);
      this.hasObjectiveRow = true;
    } else if (type === "E" || type === "L" || type === "G") {
      this.caps.addConstraint(`line ${this.lineNumber}`);
      this.rowIndex.set(name, this.rowNames.length);
      this.rowNames.push(name);
      this.rowTypes.push(type);
      this.rowLines.push(this.lineNumber);
      this.rowTerms.push([]);
    } else {
      this.fail(`unknown row type "${this.field[0]}" (expected N, E, L or G)`);
    }
  }

  private startColumns(): void {
    this.section = "columns";
    const rows = this.rowNames.length;
    this.rowLastColumn = new Int32Array(rows).fill(-1);
    this.rowRhs = new Float64Array(rows);
    this.rowRhsLine = new Int32Array(rows);
    this.rowRange = new Float64Array(rows);
    this.rowRangeLine = new Int32Array(rows);
  }

  private endColumns(): void {
    this.currentColumn = -1;
  }

  private readColumnLine(line: string): void {
    if (line.indexOf("'MARKER'") !== -1) return this.readMarker(line);
    const count = this.readFields(line, "entries");
    if (count !== -1 && count !== 3 && count !== 5) this.fail(`a COLUMNS line has a column and one or two (row, value) pairs (${fieldsFound(count)})`);
    const f = this.field;
    const name = f[1]!;
    if (this.currentColumn === -1 || this.columnNames[this.currentColumn] !== name) this.startColumn(name);
    this.addEntry(f[2]!, f[3]!);
    if (f[4]!.length > 0 || f[5]!.length > 0) this.addEntry(f[4]!, f[5]!);
  }

  private readMarker(line: string): void {
    const count = splitWords(line, this.words);
    const kind = count >= 3 ? this.words[2]!.replace(/'/g, "").toUpperCase() : "";
    if (count !== 3 || this.words[1] !== "'MARKER'" || (kind !== "INTORG" && kind !== "INTEND")) {
      this.fail("a MARKER line reads: name 'MARKER' 'INTORG' (or 'INTEND')");
    }
    if (kind === "INTORG" && this.inIntegerBlock) this.fail("'INTORG' inside an integer block (missing 'INTEND')");
    if (kind === "INTEND" && !this.inIntegerBlock) this.fail("'INTEND' without an opening 'INTORG'");
    this.inIntegerBlock = kind === "INTORG";
  }

  private startColumn(name: string): void {
    this.checkName(name, "column");
    const seen = this.columnIndex.get(name);
    if (seen !== undefined) {
      this.fail(
        `column "${name}" appears again after other columns (first on line ${this.columnLines[seen]}); an MPS file lists each column's entries together`,
      );
    }
    this.caps.addVariable(`line ${this.lineNumber}`);
    const index = this.columnNames.length;
    this.columnIndex.set(name, index);
    this.columnNames.push(name);
    this.columnLines.push(this.lineNumber);
    this.columnTypes.push(this.inIntegerBlock ? "integer" : "continuous");
    this.columnFromMarker.push(this.inIntegerBlock);
    this.lower.push(0);
    this.upper.push(Infinity);
    this.lowerLine.push(0);
    this.upperLine.push(0);
    this.currentColumn = index;
  }

  private addEntry(rowName: string, valueToken: string): void {
    const row = this.rowIndex.get(rowName);
    if (row === undefined) this.fail(rowName.length === 0 ? "missing row name" : `row "${rowName}" is not declared in ROWS`);
    const value = this.number(valueToken, `value for row "${rowName}"`);
    const column = this.currentColumn;
    const name = this.columnNames[column]!;
    if (row === OBJECTIVE_ROW) {
      if (this.objectiveLastColumn === column) this.fail(`column "${name}" has two entries for the objective row "${rowName}"`);
      this.objectiveLastColumn = column;
      if (value !== 0) this.objectiveTerms.push({ var: name, coef: value });
    } else if (row >= 0) {
      if (this.rowLastColumn[row] === column) this.fail(`column "${name}" has two entries for row "${rowName}"`);
      this.rowLastColumn[row] = column;
      if (value !== 0) {
        this.caps.addNonzeros(1, `line ${this.lineNumber}`);
        this.rowTerms[row]!.push({ var: name, coef: value });
      }
    }
  }

  private readRhsOrRange(line: string, section: "rhs" | "ranges"): void {
    const count = this.readFields(line, "rhs");
    if (count !== -1 && (count < 2 || count > 5))
      this.fail(`an ${section.toUpperCase()} line has an optional set name and one or two (row, value) pairs (${fieldsFound(count)})`);
    const f = this.field;
    this.setRowValue(f[2]!, f[3]!, section);
    if (f[4]!.length > 0 || f[5]!.length > 0) this.setRowValue(f[4]!, f[5]!, section);
  }

  private setRowValue(rowName: string, token: string, section: "rhs" | "ranges"): void {
    const row = this.rowIndex.get(rowName);
    if (row === undefined) this.fail(rowName.length === 0 ? "missing row name" : `row "${rowName}" is not declared in ROWS`);
    const what = section === "rhs" ? "right-hand side" : "range";
    const value = this.number(token, `${what} of row "${rowName}"`);
    if (row === DROPPED_ROW || (row === OBJECTIVE_ROW && section === "ranges")) return;
    if (row === OBJECTIVE_ROW) {
      if (this.objectiveConstantLine !== 0)
        this.fail(`a second right-hand side for the objective row "${rowName}" (first on line ${this.objectiveConstantLine})`);
      this.objectiveConstantLine = this.lineNumber;
      this.objectiveConstant = value === 0 ? 0 : -value;
      return;
    }
    const lines = section === "rhs" ? this.rowRhsLine : this.rowRangeLine;
    if (lines[row] !== 0) this.fail(`a second ${what} for row "${rowName}" (first on line ${lines[row]})`);
    lines[row] = this.lineNumber;
    (section === "rhs" ? this.rowRhs : this.rowRange)[row] = value;
  }

  private readBound(line: string): void {
    const count = this.readFields(line, "bounds");
    if (count !== -1 && (count < 2 || count > 4)) this.fail(`a BOUNDS line has a type, an optional set name, a column and a value (${fieldsFound(count)})`);
    const f = this.field;
    const type = f[0]!.toUpperCase();
    const name = f[2]!;
    const column = this.columnIndex.get(name);
    if (column === undefined) this.fail(name.length === 0 ? "missing column name" : `column "${name}" in BOUNDS does not appear in COLUMNS`);
    const setLower = (value: number) => {
      if (this.lowerLine[column] !== 0) this.fail(`a second lower bound for column "${name}" (first on line ${this.lowerLine[column]})`);
      if (value === Infinity) this.fail(`lower bound +inf for column "${name}"`);
      this.lower[column] = value;
      this.lowerLine[column] = this.lineNumber;
    };
    const setUpper = (value: number) => {
      if (this.upperLine[column] !== 0) this.fail(`a second upper bound for column "${name}" (first on line ${this.upperLine[column]})`);
      if (value === -Infinity) this.fail(`upper bound -inf for column "${name}"`);
      this.upper[column] = value;
      this.upperLine[column] = this.lineNumber;
    };
    const value = () => this.number(f[3]!, `bound for column "${name}"`, { allowInfinite: true });
    switch (type) {
      case "UP": {
        const v = value();
        // HiGHS (fixed reader), CBC and SCIP: a negative upper bound over the default lower bound 0
        // means the modeller forgot the lower bound, which becomes −inf.
        if (v < 0 && this.lowerLine[column] === 0) this.lower[column] = -Infinity;
        return setUpper(v);
      }
      case "LO":
        return setLower(value());
      case "FX": {
        const v = this.number(f[3]!, `bound for column "${name}"`);
        setLower(v);
        return setUpper(v);
      }
      case "FR":
        setLower(-Infinity);
        return setUpper(Infinity);
      case "MI":
        return setLower(-Infinity);
      case "PL":
        return setUpper(Infinity);
      case "BV":
        this.columnTypes[column] = "binary";
        setLower(0);
        return setUpper(1);
      case "LI":
        this.columnTypes[column] = "integer";
        return setLower(value());
      case "UI":
        this.columnTypes[column] = "integer";
        return setUpper(value());
      case "SC":
      case "SI":
        return this.fail(`semi-${type === "SC" ? "continuous" : "integer"} bounds (${type}) are not supported`);
      default:
        return this.fail(`unknown bound type "${f[0]}" (expected UP, LO, FX, FR, MI, PL, BV, LI or UI)`);
    }
  }

  private readQuadratic(line: string, section: "quadobj" | "qmatrix"): void {
    const count = this.readFields(line, "entries");
    if (count !== -1 && count !== 3 && count !== 5)
      this.fail(`a ${section.toUpperCase()} line has a column and one or two (column, value) pairs (${fieldsFound(count)})`);
    const f = this.field;
    this.addQuadratic(section, { name1: f[1]!, name2: f[2]!, token: f[3]! });
    if (f[4]!.length > 0 || f[5]!.length > 0) this.addQuadratic(section, { name1: f[1]!, name2: f[4]!, token: f[5]! });
  }

  private addQuadratic(section: "quadobj" | "qmatrix", { name1, name2, token }: { name1: string; name2: string; token: string }): void {
    for (const name of [name1, name2]) {
      if (!this.columnIndex.has(name))
        this.fail(name.length === 0 ? "missing column name" : `column "${name}" in ${section.toUpperCase()} does not appear in COLUMNS`);
    }
    const value = this.number(token, `coefficient of (${name1}, ${name2})`);
    // Objective is c'x + ½x'Qx: see the conventions at the top of this file.
    const coef = section === "qmatrix" || name1 === name2 ? value / 2 : value;
    if (coef !== 0) {
      this.caps.addNonzeros(1, `line ${this.lineNumber}`);
      this.quadratic.push({ var1: name1, var2: name2, coef });
    }
  }

  private build(): Problem {
    if (!this.seenSections.has("ROWS")) this.fail("no ROWS section");
    if (this.columnNames.length === 0) this.fail("no columns: a problem needs at least one variable");
    const variables: Variable[] = this.columnNames.map((name, j) => {
      const lb = this.lower[j]!;
      let ub = this.upper[j]!;
      const anyBound = this.lowerLine[j] !== 0 || this.upperLine[j] !== 0;
      if (this.columnFromMarker[j] && this.columnTypes[j] === "integer" && !anyBound) ub = 1;
      if (lb > ub) {
        const line = Math.max(this.lowerLine[j]!, this.upperLine[j]!) || this.columnLines[j]!;
        this.fail(`column "${name}" has lower bound ${lb} above its upper bound ${ub}`, line);
      }
      return { name, lb: lb === -Infinity ? null : lb, ub: ub === Infinity ? null : ub, type: this.columnTypes[j]! };
    });
    const constraints: Constraint[] = this.rowNames.map((name, i) => {
      const [lb, ub] = this.rowBounds(i);
      return { name, terms: this.rowTerms[i]!, lb, ub };
    });
    const problem: Problem = {
      name: (this.problemName || "problem").slice(0, MAX_NAME_LENGTH),
      sense: this.sense,
      variables,
      objective: { constant: this.objectiveConstant, terms: this.objectiveTerms },
      constraints,
    };
    if (this.quadratic.length > 0) problem.objective.quadratic = canonicalQuadratic(this.quadratic, this.columnIndex);
    return problem;
  }

  /** Row bounds from type, RHS and RANGES (conventions at the top of this file). */
  private rowBounds(i: number): [number | null, number | null] {
    const rhs = this.rowRhs[i]!;
    const hasRange = this.rowRangeLine[i] !== 0;
    const range = this.rowRange[i]!;
    const width = Math.abs(range);
    switch (this.rowTypes[i]) {
      case "L":
        return [hasRange ? rhs - width : null, rhs];
      case "G":
        return [rhs, hasRange ? rhs + width : null];
      default:
        if (!hasRange || range === 0) return [rhs, rhs];
        return range < 0 ? [rhs + range, rhs] : [rhs, rhs + range];
    }
  }
}
