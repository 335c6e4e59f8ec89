import type { ConstraintDecl, ModelAst, ObjectiveDecl, Relation, VarDecl } from "./ast.js";
import { checkModel } from "./checker.js";
import { bindParam, bindSet, mergeDataset } from "./dataset.js";
import { dataError, JModelError, type JModelProblem } from "./errors.js";
import { Evaluator, type Frame } from "./evaluate.js";
import { DenseRow, Linearizer, type VarTable } from "./linearize.js";
import { emptyModelNames, type ModelNames, type NameOrigin } from "./names.js";
import { parseWithRecovery } from "./parser.js";
import { generatedName, TupleMap, type Atom } from "./values.js";
import { CapCounter, type ModelCaps } from "../limits/model-caps.js";
import { problemStats, type Constraint, type Problem, type ProblemStats, type Variable } from "../problem/schema.js";

/**
 * The JModel compiler: parse, check, bind the dataset, expand to the canonical problem. Duplicate terms
 * are merged, zero coefficients dropped, constants moved into the bounds (the objective's into
 * `objective.constant`), and a constraint left without variables is checked and dropped.
 *
 * With `caps`, every variable, row, nonzero, set and indexing step is counted as it is made, and the
 * compile stops with ModelCapExceeded the moment one would pass its cap (limits/model-caps.ts).
 */

export interface CompileOptions {
  /** Named sets and parameters replacing the dataset's (a trigger's override data); same format. */
  overrides?: Record<string, unknown>;
  /** The canonical problem's `name`; "jmodel" when omitted. */
  name?: string;
  /** The instance's size caps (limits/model-caps.ts); omitted: none but the set-size bound. */
  caps?: ModelCaps;
}

export interface CompileStats extends ProblemStats {
  /** Constraints that had no variables after expansion (checked to hold, then left out). */
  dropped_constraint_count: number;
  elapsed_ms: number;
}

export interface CompileResult {
  problem: Problem;
  stats: CompileStats;
  /** Each generated constraint and variable name's family and index tuple (recorded as generated, never parsed back). */
  names: ModelNames;
}

/** Longest variable or constraint name the canonical problem accepts. */
const MAX_NAME_LENGTH = 255;

/** Parses and checks; throws a JModelError carrying every problem found when there is any. */
export function checkedModel(source: string): ModelAst {
  const { ast, problems } = parseWithRecovery(source);
  const all: JModelProblem[] = [...problems, ...checkModel(ast)].sort((a, b) => a.line - b.line || a.column - b.column);
  if (all.length > 0) throw new JModelError(all[0]!, all);
  return ast;
}

export function compileJModel(source: string, data: unknown, options: CompileOptions = {}): CompileResult {
  const started = performance.now();
  const ast = checkedModel(source);
  const raw = mergeDataset(ast, data, options.overrides);
  const caps = new CapCounter(options.caps);
  const ev = new Evaluator(caps);
  const variables: Variable[] = [];
  const tables = new Map<VarDecl, VarTable>();
  const names = emptyModelNames();

  // Sets, parameters and variables first, in order (each may use only what precedes it), then the
  // rows: every variable must exist before a row's dense buffer is sized.
  for (const decl of ast.declarations) {
    if (decl.kind === "set") bindSet(ev, decl, raw.get(decl.name));
    else if (decl.kind === "param") bindParam(ev, decl, raw.get(decl.name));
    else if (decl.kind === "var") tables.set(decl, createVariables(decl, { ev, caps, variables, origins: names.variables }));
  }
  if (variables.length === 0) {
    const at = ast.declarations.find((d) => d.kind === "var")?.pos ?? ast.end;
    throw dataError({ code: "no_variables", at, message: "the model has no variables once expanded with this dataset (every variable's index set is empty)" });
  }

  const variableNames = variables.map((v) => v.name);
  const linearizer = new Linearizer(ev, tables);
  const row = new DenseRow(variables.length);
  const constraints: Constraint[] = [];
  let dropped = 0;
  let problem: Omit<Problem, "constraints"> | null = null;
  for (const decl of ast.declarations) {
    if (decl.kind === "objective")
      problem = expandObjective(decl, { linearizer, names: variableNames, variables, problemName: options.name ?? "jmodel", caps });
    else if (decl.kind === "constraint")
      dropped += expandConstraint(decl, { ev, caps, linearizer, row, names: variableNames, out: constraints, origins: names.constraints });
  }
  const result: Problem = { ...problem!, constraints };
  return { problem: result, stats: { ...problemStats(result), dropped_constraint_count: dropped, elapsed_ms: performance.now() - started }, names };
}

/** Appends the variables of one declaration to `variables`, each name's origin to `origins`. */
function createVariables(
  decl: VarDecl,
  { ev, caps, variables, origins }: { ev: Evaluator; caps: CapCounter; variables: Variable[]; origins: Map<string, NameOrigin> },
): VarTable {
  const frame: Frame = new Array(decl.frameSize ?? 0);
  const positions = new TupleMap<number>(decl.arity ?? 0);
  const type = decl.binary ? "binary" : decl.integer ? "integer" : "continuous";
  const where = `variable \`${decl.name}\` at line ${decl.pos.line}`;
  const emit = (index: Atom[]) => {
    caps.addVariable(where);
    const name = generatedName(decl.name, index);
    if (name.length > MAX_NAME_LENGTH) {
      throw dataError({
        code: "name_too_long",
        at: decl.pos,
        message: `variable name \`${name.slice(0, 40)}…\` is longer than ${MAX_NAME_LENGTH} characters`,
        symbol: decl.name,
      });
    }
    const lowerExpr = decl.fixed ?? decl.lower;
    const upperExpr = decl.fixed ?? decl.upper;
    // Unbounded unless bounded, as in AMPL and GMPL; binary variables live in [0, 1].
    let lb = lowerExpr === null ? -Infinity : ev.evalNum(lowerExpr, frame);
    let ub = upperExpr === null ? Infinity : ev.evalNum(upperExpr, frame);
    if (decl.binary) {
      lb = Math.max(lb, 0);
      ub = Math.min(ub, 1);
    }
    if (lb > ub || lb === Infinity || ub === -Infinity) {
      throw dataError({
        code: "inconsistent_bounds",
        at: decl.pos,
        message: `variable \`${name}\` has lower bound ${lb} and upper bound ${ub}: no value fits`,
        symbol: decl.name,
      });
    }
    positions.set(index, variables.length);
    origins.set(name, { family: decl.name, index: [...index] });
    variables.push({ name, lb: lb === -Infinity ? null : lb, ub: ub === Infinity ? null : ub, type });
  };
  if (decl.indexing === null) emit([]);
  else ev.iterate(decl.indexing, frame, emit);
  return { decl, positions };
}

function expandObjective(
  decl: ObjectiveDecl,
  {
    linearizer,
    names,
    variables,
    problemName,
    caps,
  }: { linearizer: Linearizer; names: string[]; variables: Variable[]; problemName: string; caps: CapCounter },
): Omit<Problem, "constraints"> {
  const row = new DenseRow(names.length, { acceptsQuadratic: true, caps });
  linearizer.add(decl.expr, new Array(decl.frameSize ?? 0), 1, row);
  const constant = row.constant;
  if (!Number.isFinite(constant))
    throw dataError({ code: "non_finite", at: decl.pos, message: `the objective's constant term is ${constant}`, symbol: decl.name });
  const terms = row.drainTerms(names, "the objective", decl.pos);
  const quadratic = row.drainQuadratic(names, decl.pos);
  return {
    name: problemName,
    sense: decl.sense,
    variables,
    objective: quadratic.length > 0 ? { constant, terms, quadratic } : { constant, terms },
  };
}

/** Appends the rows of one constraint declaration; returns how many rows were dropped as constant. */
function expandConstraint(
  decl: ConstraintDecl,
  {
    ev,
    caps,
    linearizer,
    row,
    names,
    out,
    origins,
  }: { ev: Evaluator; caps: CapCounter; linearizer: Linearizer; row: DenseRow; names: string[]; out: Constraint[]; origins: Map<string, NameOrigin> },
): number {
  const frame: Frame = new Array(decl.frameSize ?? 0);
  let dropped = 0;
  // `demand[m] <= sum{…} x[p,m]` reads better as `sum{…} x[p,m] >= demand[m]`: keep the variables'
  // side as written and move the other across, flipping the relation.
  const flip = decl.middle === null && decl.left.degree === 0 && (decl.right.degree ?? 0) > 0;
  const where = `constraint \`${decl.name}\` at line ${decl.pos.line}`;

  const emit = (index: Atom[]) => {
    const name = generatedName(decl.name, index);
    let lb: number;
    let ub: number;
    if (decl.middle === null) {
      linearizer.add(flip ? decl.right : decl.left, frame, 1, row);
      linearizer.add(flip ? decl.left : decl.right, frame, -1, row);
      const relation: Relation = flip ? mirror(decl.relation) : decl.relation;
      const rhs = -row.constant;
      lb = relation === "<=" ? -Infinity : rhs;
      ub = relation === ">=" ? Infinity : rhs;
    } else {
      const outer = [ev.evalNum(decl.left, frame), ev.evalNum(decl.right, frame)];
      const [lo, hi] = decl.relation === "<=" ? outer : [outer[1]!, outer[0]!];
      linearizer.add(decl.middle, frame, 1, row);
      lb = lo! - row.constant;
      ub = hi! - row.constant;
    }
    if (Number.isNaN(lb) || Number.isNaN(ub)) {
      throw dataError({ code: "non_finite", at: decl.pos, message: `constraint \`${name}\` adds infinite constants of opposite signs`, symbol: decl.name });
    }
    const terms = row.drainTerms(names, `constraint \`${name}\``, decl.pos);
    if (terms.length === 0) {
      if (!holds(lb, ub)) {
        const sides = [decl.left, decl.middle, decl.right].flatMap((e) => (e === null ? [] : [linearizer.constantPart(e, frame)]));
        throw dataError({
          code: "infeasible_constant_constraint",
          at: decl.pos,
          message: `constraint \`${name}\` has no variables after expansion and does not hold: ${sides.join(` ${decl.relation} `)}`,
          symbol: decl.name,
        });
      }
      dropped++;
      return;
    }
    if (lb === Infinity || ub === -Infinity || lb > ub) {
      throw dataError({
        code: "inconsistent_bounds",
        at: decl.pos,
        message: `constraint \`${name}\` can never hold: its bounds are ${lb} and ${ub}`,
        symbol: decl.name,
      });
    }
    if (name.length > MAX_NAME_LENGTH) {
      throw dataError({
        code: "name_too_long",
        at: decl.pos,
        message: `constraint name \`${name.slice(0, 40)}…\` is longer than ${MAX_NAME_LENGTH} characters`,
        symbol: decl.name,
      });
    }
    caps.addConstraint(where);
    caps.addNonzeros(terms.length, where);
    origins.set(name, { family: decl.name, index: [...index] });
    out.push({ name, terms, lb: lb === -Infinity ? null : lb, ub: ub === Infinity ? null : ub });
  };
  if (decl.indexing === null) emit([]);
  else ev.iterate(decl.indexing, frame, emit);
  return dropped;
}

function mirror(relation: Relation): Relation {
  return relation === "<=" ? ">=" : relation === ">=" ? "<=" : "==";
}

/** Whether 0 lies in [lb, ub], up to rounding in the constants. */
function holds(lb: number, ub: number): boolean {
  const tolerance = (bound: number) => 1e-9 * Math.max(1, Number.isFinite(bound) ? Math.abs(bound) : 1);
  return lb <= tolerance(lb) && ub >= -tolerance(ub);
}
