import type { Declaration, Expr, ExprType } from "./ast.js";

/** The checker's vocabulary: what a context allows, what checking an expression yields, how types read. */

/** What the context allows: 0 = no variables (data, bounds, conditions), 1 = linear, 2 = quadratic. */
export interface Context {
  maxDegree: 0 | 1 | 2;
  /** Where the expression sits, for messages: "a constraint", "the bounds of `x`". */
  where: string;
}

/** Result of checking one expression; `type` null means "already reported, do not report again". */
export interface Info {
  type: ExprType | null;
  degree: number;
  /** Smallest dummy slot the expression reads without binding it (Infinity: none, the value is closed). */
  minFree: number;
}

export const NUMBER: ExprType = { kind: "number" };
export const BOOL: ExprType = { kind: "bool" };
export const UNKNOWN: Info = { type: null, degree: 0, minFree: Infinity };

/** The value of a number literal, possibly signed: the only exponents allowed on variables. */
export function literalValue(expr: Expr): number | null {
  if (expr.kind === "number") return expr.value;
  if (expr.kind === "unary" && expr.operand.kind === "number") return expr.op === "-" ? -expr.operand.value : expr.operand.value;
  return null;
}

export function describeType(type: ExprType): string {
  switch (type.kind) {
    case "number":
      return "a number";
    case "atom":
      return "a set element";
    case "string":
      return "a string";
    case "bool":
      return "a condition";
    case "set":
      return `a set (dimension ${type.dimension})`;
    case "tuple":
      return `a tuple of ${type.size}`;
  }
}

export function describeKind(decl: Declaration): string {
  return decl.kind === "param" ? "parameter" : decl.kind === "var" ? "variable" : decl.kind;
}

export function letters(n: number): string {
  return Array.from({ length: n }, (_, i) => String.fromCharCode(97 + i)).join(", ");
}
