import type { SourcePosition } from "./errors.js";
import type { Atom } from "./values.js";

/**
 * The JModel syntax tree. One expression grammar covers numbers, conditions, set expressions and
 * variable expressions; the checker decides which is which and records what it learned on the nodes
 * (the `resolved`, `type`, `degree` fields), so the compiler never repeats a name lookup.
 */

export type Pos = SourcePosition;

// ---------------------------------------------------------------- declarations

export interface SetDecl {
  kind: "set";
  name: string;
  pos: Pos;
  /** `dimen k` */
  dimen: { value: number; pos: Pos } | null;
  /** `within S`: data must lie inside S. */
  within: Expr | null;
  /** `:= S` fixes the set in the model; `default S` lets data replace it. */
  definition: Expr | null;
  definitionText: string | null;
  defaultValue: Expr | null;
  defaultText: string | null;
  /** Filled by the checker. */
  dimension?: number;
  frameSize?: number;
}

export type ParamCheckOp = ">=" | "<=" | ">" | "<" | "!=";

export interface ParamDecl {
  kind: "param";
  name: string;
  pos: Pos;
  indexing: Indexing | null;
  integer: boolean;
  binary: boolean;
  checks: { op: ParamCheckOp; value: Expr; pos: Pos }[];
  definition: Expr | null;
  definitionText: string | null;
  defaultValue: Expr | null;
  defaultText: string | null;
  /** Filled by the checker: number of index components. */
  arity?: number;
  /** Filled by the checker: how many dummy slots evaluating this declaration needs. */
  frameSize?: number;
}

export interface VarDecl {
  kind: "var";
  name: string;
  pos: Pos;
  indexing: Indexing | null;
  integer: boolean;
  binary: boolean;
  lower: Expr | null;
  upper: Expr | null;
  /** `== e`: lower and upper bound both e. */
  fixed: Expr | null;
  arity?: number;
  frameSize?: number;
}

export interface ObjectiveDecl {
  kind: "objective";
  name: string;
  pos: Pos;
  sense: "minimize" | "maximize";
  expr: Expr;
  frameSize?: number;
}

export type Relation = "<=" | ">=" | "==";

export interface ConstraintDecl {
  kind: "constraint";
  name: string;
  pos: Pos;
  indexing: Indexing | null;
  /** `left rel right`, or ranged `left rel middle rel right` (both relations the same, never `==`). */
  left: Expr;
  relation: Relation;
  relationPos: Pos;
  middle: Expr | null;
  right: Expr;
  arity?: number;
  frameSize?: number;
}

export type Declaration = SetDecl | ParamDecl | VarDecl | ObjectiveDecl | ConstraintDecl;

export interface ModelAst {
  declarations: Declaration[];
  /** Names of declarations that failed to parse: the checker does not report their uses as undeclared. */
  brokenNames: string[];
  /** True when a `minimize`/`maximize` statement failed to parse (so "no objective" would be noise). */
  brokenObjective: boolean;
  /** Where the source ends, for "no objective" and similar whole-model problems. */
  end: Pos;
  source: string;
}

// ---------------------------------------------------------------- indexing

/**
 * One entry of an indexing expression `{i in I, (a,b) in ARCS, PLANTS: condition}`.
 * `dummies` is null for an anonymous entry (`{PLANTS}`). In a tuple pattern, a name that is already
 * bound by an enclosing indexing is a filter, not a new dummy (AMPL's `sum{(i,k) in LINKS}` with k bound).
 */
export interface IndexEntry {
  pos: Pos;
  dummies: { name: string; pos: Pos; slot?: number; filter?: boolean }[] | null;
  set: Expr;
  /** The set expression as written, for symbol listings. */
  setText: string;
  /** Filled by the checker: the entry's dimension. */
  dimension?: number;
  /** Filled by the checker: positions of the tuple pattern that are filters (bound outside), if any. */
  filterPositions?: number[];
}

export interface Indexing {
  pos: Pos;
  entries: IndexEntry[];
  condition: Expr | null;
}

// ---------------------------------------------------------------- expressions

/** What a name refers to, filled by the checker. */
export type Resolved = { kind: "dummy"; slot: number } | { kind: "set"; decl: SetDecl } | { kind: "param"; decl: ParamDecl } | { kind: "var"; decl: VarDecl };

/** The static type of an expression, filled by the checker. `atom` is a set element (number or string). */
export type ExprType =
  | { kind: "number" }
  | { kind: "atom" }
  | { kind: "string" }
  | { kind: "bool" }
  | { kind: "set"; dimension: number }
  | { kind: "tuple"; size: number };

interface ExprBase {
  pos: Pos;
  type?: ExprType;
  /** Filled by the checker: 0 = no variables, 1 = linear, 2 = quadratic. */
  degree?: number;
  /** Filled by the checker: true when the value depends on no dummy (so it can be cached). */
  closed?: boolean;
}

export interface NumberLit extends ExprBase {
  kind: "number";
  value: number;
}
/** `atom` is the element the string stands for ("1" is the number 1), filled by the checker. */
export interface StringLit extends ExprBase {
  kind: "string";
  value: string;
  atom?: Atom;
}
export interface InfinityLit extends ExprBase {
  kind: "infinity";
}
/** `x`, `cost[i,j]` — a set, parameter, variable or dummy. */
export interface NameRef extends ExprBase {
  kind: "name";
  name: string;
  indices: Expr[] | null;
  resolved?: Resolved;
}
export interface Unary extends ExprBase {
  kind: "unary";
  op: "-" | "+";
  operand: Expr;
}
/**
 * `a + b - c`: one node for a whole chain of additions, so a generated model's sum of a hundred
 * thousand explicit terms is a flat list, not a tree that deep. `signs[0]` is always 1.
 */
export interface Plus extends ExprBase {
  kind: "plus";
  terms: Expr[];
  signs: (1 | -1)[];
}
export type ArithOp = "*" | "/" | "^" | "mod";
export interface Binary extends ExprBase {
  kind: "binary";
  op: ArithOp;
  left: Expr;
  right: Expr;
  opPos: Pos;
}
export type CompareOp = "<" | "<=" | "==" | "!=" | ">=" | ">";
export interface Compare extends ExprBase {
  kind: "compare";
  op: CompareOp;
  left: Expr;
  right: Expr;
  opPos: Pos;
}
export interface Logical extends ExprBase {
  kind: "logical";
  op: "and" | "or";
  left: Expr;
  right: Expr;
}
export interface Not extends ExprBase {
  kind: "not";
  operand: Expr;
}
export interface Membership extends ExprBase {
  kind: "in";
  item: Expr;
  set: Expr;
  negated: boolean;
}
export interface If extends ExprBase {
  kind: "if";
  condition: Expr;
  then: Expr;
  otherwise: Expr | null;
}
export type FunctionName = "abs" | "floor" | "ceil" | "sqrt" | "exp" | "log" | "min" | "max" | "card";
export interface Call extends ExprBase {
  kind: "call";
  fn: FunctionName;
  args: Expr[];
}
export interface Iterated extends ExprBase {
  kind: "iterated";
  op: "sum" | "min" | "max";
  indexing: Indexing;
  body: Expr;
}
export interface Tuple extends ExprBase {
  kind: "tuple";
  items: Expr[];
}
export interface Range extends ExprBase {
  kind: "range";
  from: Expr;
  to: Expr;
  step: Expr | null;
}
export type SetOp = "union" | "inter" | "diff" | "symdiff" | "cross";
export interface SetOperation extends ExprBase {
  kind: "setop";
  op: SetOp;
  left: Expr;
  right: Expr;
}
/** `{1, 2, 3}`, `{("a", 1), ("b", 2)}`, `{}` */
export interface SetLiteral extends ExprBase {
  kind: "setlit";
  elements: Expr[];
}
/** `{i in I, j in J: condition}`: the set of the dummies' values. */
export interface SetBuilder extends ExprBase {
  kind: "setbuilder";
  indexing: Indexing;
}

export type Expr =
  | NumberLit
  | StringLit
  | InfinityLit
  | NameRef
  | Unary
  | Plus
  | Binary
  | Compare
  | Logical
  | Not
  | Membership
  | If
  | Call
  | Iterated
  | Tuple
  | Range
  | SetOperation
  | SetLiteral
  | SetBuilder;
