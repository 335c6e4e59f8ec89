import type { Expr, Indexing, ModelAst } from "./ast.js";
import { checkedModel } from "./compiler.js";
import { Evaluator } from "./evaluate.js";

/**
 * What a model declares, for callers that never compile: a trigger validating its override schema
 * (which names exist, which the data may replace, what JSON each takes), a UI listing the inputs.
 */

export interface SetSymbol {
  name: string;
  dimension: number;
  /** "data": the dataset gives it (or its `default` applies); "model": fixed in the model with `:=`. */
  source: "data" | "model";
  /** A dataset or an override may give it (false for `:=`). */
  overridable: boolean;
  /** The dataset must give it: no `:=` and no `default`. */
  required: boolean;
  default_text: string | null;
  definition_text: string | null;
  /** JSON types a dataset or override may use for it. */
  json_types: ("array" | "number" | "object")[];
  line: number;
  column: number;
}

export interface ParamSymbol {
  name: string;
  /** The indexing sets as written (`PLANTS`, `1..T`); empty for a scalar. */
  indexed_over: string[];
  arity: number;
  value_type: "number" | "integer" | "binary";
  source: "data" | "model";
  overridable: boolean;
  required: boolean;
  default_text: string | null;
  /** The default's value when it is a constant (`default 0`), else null. */
  default_value: number | null;
  definition_text: string | null;
  json_types: ("array" | "number" | "object")[];
  line: number;
  column: number;
}

export interface VariableSymbol {
  name: string;
  indexed_over: string[];
  arity: number;
  type: "continuous" | "integer" | "binary";
}

export interface ConstraintSymbol {
  name: string;
  indexed_over: string[];
  arity: number;
}

export interface ModelSymbols {
  sets: SetSymbol[];
  params: ParamSymbol[];
  variables: VariableSymbol[];
  constraints: ConstraintSymbol[];
  objective: { name: string; sense: "minimize" | "maximize" };
  /** Names a dataset or an override may give: every set and parameter not fixed with `:=`. */
  overridable: string[];
}

/** The symbols of a model; throws JModelError (with every problem) when the model does not check. */
export function modelSymbols(source: string): ModelSymbols {
  return symbolsOf(checkedModel(source));
}

export function symbolsOf(ast: ModelAst): ModelSymbols {
  const symbols: ModelSymbols = { sets: [], params: [], variables: [], constraints: [], objective: { name: "", sense: "minimize" }, overridable: [] };
  for (const decl of ast.declarations) {
    switch (decl.kind) {
      case "set":
        symbols.sets.push({
          name: decl.name,
          dimension: decl.dimension ?? 1,
          source: decl.definition === null ? "data" : "model",
          overridable: decl.definition === null,
          required: decl.definition === null && decl.defaultValue === null,
          default_text: decl.defaultText,
          definition_text: decl.definitionText,
          json_types: ["array"],
          line: decl.pos.line,
          column: decl.pos.column,
        });
        break;
      case "param":
        symbols.params.push({
          name: decl.name,
          indexed_over: indexedOver(decl.indexing),
          arity: decl.arity ?? 0,
          value_type: decl.binary ? "binary" : decl.integer ? "integer" : "number",
          source: decl.definition === null ? "data" : "model",
          overridable: decl.definition === null,
          required: decl.definition === null && decl.defaultValue === null,
          default_text: decl.defaultText,
          default_value: decl.defaultValue === null ? null : constantValue(decl.defaultValue),
          definition_text: decl.definitionText,
          json_types: (decl.arity ?? 0) === 0 ? ["number"] : ["object", "array"],
          line: decl.pos.line,
          column: decl.pos.column,
        });
        break;
      case "var":
        symbols.variables.push({
          name: decl.name,
          indexed_over: indexedOver(decl.indexing),
          arity: decl.arity ?? 0,
          type: decl.binary ? "binary" : decl.integer ? "integer" : "continuous",
        });
        break;
      case "constraint":
        symbols.constraints.push({ name: decl.name, indexed_over: indexedOver(decl.indexing), arity: decl.arity ?? 0 });
        break;
      case "objective":
        symbols.objective = { name: decl.name, sense: decl.sense };
        break;
    }
  }
  symbols.overridable = [...symbols.sets, ...symbols.params].filter((s) => s.overridable).map((s) => s.name);
  return symbols;
}

function indexedOver(indexing: Indexing | null): string[] {
  return indexing === null ? [] : indexing.entries.map((e) => e.setText);
}

/** The value of an expression made of literals only (`-1`, `2 * 3`, `infinity`), else null. */
function constantValue(expr: Expr): number | null {
  const literal = (e: Expr): boolean => {
    switch (e.kind) {
      case "number":
      case "infinity":
        return true;
      case "unary":
        return literal(e.operand);
      case "plus":
        return e.terms.every(literal);
      case "binary":
        return literal(e.left) && literal(e.right);
      default:
        return false;
    }
  };
  if (!literal(expr)) return null;
  try {
    const value = new Evaluator().evalNum(expr, []);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}
