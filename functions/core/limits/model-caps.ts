import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { ProblemStats } from "../problem/schema.js";

/**
 * The instance's caps on one problem's size, checked while a problem is built (the JModel compiler, the
 * MPS and LP readers) and again on any problem a request carries whole, so no request can make the
 * service allocate past them: a 37-byte override (`{"n": 10000000}` for `var x{1..n}`) stops at the
 * cap, having built no more than it. 0 = no ceiling (the spec's convention); the defaults are in
 * config.ts and docs/decisions.md.
 *
 * Two bounds follow from the three settings, for what a model builds that is not a variable, row or
 * nonzero: a set materialized by the compiler holds at most as many elements as the larger of the
 * variable and constraint caps (sets index variables and rows; a range `1..n` is measured before it is
 * built), and expanding a model takes at most
 * EXPANSION_STEPS_PER_NONZERO steps per nonzero allowed (one step per member an indexing visits), which
 * bounds the CPU of `sum{i in I, j in I, k in I}` over a small set as the caps bound memory.
 */
export interface ModelCaps {
  variables: number;
  constraints: number;
  nonzeros: number;
}

export type CapName = "variables" | "constraints" | "nonzeros" | "set_elements" | "expansion_steps";
export const CAP_NAMES: readonly CapName[] = ["variables", "constraints", "nonzeros", "set_elements", "expansion_steps"];

/** Indexing visits allowed per nonzero the caps allow: conditions and sums that filter cost steps that make no term. */
export const EXPANSION_STEPS_PER_NONZERO = 40;
/** The set-size bound when no cap is set (the compiler's former fixed limit). */
export const UNCAPPED_SET_ELEMENTS = 10_000_000;

export const NO_CAPS: ModelCaps = { variables: 0, constraints: 0, nonzeros: 0 };

export function modelCaps(config: Pick<Config, "instanceMaxVariables" | "instanceMaxConstraints" | "instanceMaxNonzeros">): ModelCaps {
  return { variables: config.instanceMaxVariables, constraints: config.instanceMaxConstraints, nonzeros: config.instanceMaxNonzeros };
}

/** The two derived bounds (0 = none). */
export function derivedBounds(caps: ModelCaps): { setElements: number; expansionSteps: number } {
  const largest = Math.max(caps.variables, caps.constraints);
  return {
    setElements: largest > 0 ? largest : UNCAPPED_SET_ELEMENTS,
    expansionSteps: caps.nonzeros > 0 ? caps.nonzeros * EXPANSION_STEPS_PER_NONZERO : 0,
  };
}

/**
 * Thrown by a builder the moment a count would pass its cap (`count` is the count it would have
 * reached: the cap plus one, or a measured size such as a range's), before it allocates more.
 */
export class ModelCapExceeded extends Error {
  readonly limit: number;
  readonly count: number;
  /** Where building stopped, for the message (`set I`, `line 4`, …). */
  readonly where: string | null;

  constructor(
    readonly cap: CapName,
    { limit, count, where = null }: { limit: number; count: number; where?: string | null },
  ) {
    super(`${describeCap(cap, count, limit)}${where ? ` (${where})` : ""}`);
    this.name = "ModelCapExceeded";
    this.limit = limit;
    this.count = count;
    this.where = where;
  }
}

export const isModelCapExceeded = (error: unknown): error is ModelCapExceeded => error instanceof ModelCapExceeded;

const CAP_WORDS: Record<CapName, string> = {
  variables: "variables",
  constraints: "constraints",
  nonzeros: "nonzero coefficients",
  set_elements: "elements in one set",
  expansion_steps: "expansion steps",
};

function describeCap(cap: CapName, count: number, limit: number): string {
  return `the model has more than ${limit} ${CAP_WORDS[cap]}${count > limit + 1 ? ` (${count})` : ""}; this instance allows at most ${limit}`;
}

/** The 403 a request gets for a model past a cap: variable_limit_exceeded for variables (the spec's), model_size_limit_exceeded otherwise. */
export function capRefusal(error: ModelCapExceeded): AppError {
  const detail = `The model is too large for this instance: ${error.message}. Nothing was run or charged.`;
  if (error.cap === "variables") return new AppError("variable_limit_exceeded", detail, { variable_count: error.count, limit: error.limit });
  return new AppError("model_size_limit_exceeded", detail, { limit_name: error.cap, count: error.count, limit: error.limit });
}

/**
 * Counts what a builder makes, against the caps, and throws ModelCapExceeded the moment one would pass.
 * One per build (a compile, a file read).
 */
export class CapCounter {
  variables = 0;
  constraints = 0;
  nonzeros = 0;
  steps = 0;
  private readonly bounds: { setElements: number; expansionSteps: number };

  constructor(readonly caps: ModelCaps = NO_CAPS) {
    this.bounds = derivedBounds(caps);
  }

  addVariable(where?: string): void {
    if (this.caps.variables > 0 && this.variables >= this.caps.variables)
      throw new ModelCapExceeded("variables", { limit: this.caps.variables, count: this.variables + 1, where });
    this.variables++;
  }

  addConstraint(where?: string): void {
    if (this.caps.constraints > 0 && this.constraints >= this.caps.constraints) {
      throw new ModelCapExceeded("constraints", { limit: this.caps.constraints, count: this.constraints + 1, where });
    }
    this.constraints++;
  }

  addNonzeros(count: number, where?: string): void {
    if (this.caps.nonzeros > 0 && this.nonzeros + count > this.caps.nonzeros) {
      throw new ModelCapExceeded("nonzeros", { limit: this.caps.nonzeros, count: this.nonzeros + count, where });
    }
    this.nonzeros += count;
  }

  /** A set about to be built with `size` elements (measured before anything is allocated). */
  checkSetSize(size: number, where?: string): void {
    if (size > this.bounds.setElements) throw new ModelCapExceeded("set_elements", { limit: this.bounds.setElements, count: size, where });
  }

  /** One member visited by an indexing. */
  step(): void {
    if (++this.steps > this.bounds.expansionSteps && this.bounds.expansionSteps > 0) {
      throw new ModelCapExceeded("expansion_steps", { limit: this.bounds.expansionSteps, count: this.steps });
    }
  }
}

/** Checks a whole problem's counts (a problem a request carries, already parsed within the body cap). */
export function assertWithinCaps(caps: ModelCaps, stats: Pick<ProblemStats, "variable_count" | "constraint_count" | "nonzero_count">): void {
  const checks: [CapName, number, number][] = [
    ["variables", stats.variable_count, caps.variables],
    ["constraints", stats.constraint_count, caps.constraints],
    ["nonzeros", stats.nonzero_count, caps.nonzeros],
  ];
  for (const [cap, count, limit] of checks) if (limit > 0 && count > limit) throw capRefusal(new ModelCapExceeded(cap, { limit, count }));
}
