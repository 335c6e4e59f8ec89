import { describe, expect, it } from "vitest";
import { compileJModel, modelNamesOf, nameInfeasibility, storedModelNames } from "../../../../../functions/core/jmodel/index.js";
import type { Infeasibility } from "../../../../../functions/core/solvers/types.js";

/** Two regions' capacity against one market's demand: infeasible when the capacities fall short. */
const SUPPLY = `set REGIONS;
set PERIODS;
param capacity{REGIONS} >= 0;
param demand{PERIODS} >= 0;
var make{REGIONS, PERIODS} >= 0;
var spare >= 0, <= 0;
minimize cost: sum{r in REGIONS, t in PERIODS} make[r, t] + spare;
subject to within_capacity{r in REGIONS, t in PERIODS}: make[r, t] <= capacity[r];
subject to meet_demand{t in PERIODS}: sum{r in REGIONS} make[r, t] + spare >= demand[t];
subject to unused: spare <= 5;
`;
const DATA = { REGIONS: ["north", "south"], PERIODS: [1, 2], capacity: { north: 3, south: 2 }, demand: { 1: 4, 2: 9 } };

describe("JModel names: each generated name's family and index, kept at compile time", () => {
  it("records every constraint and variable the compiled problem holds, with its index tuple (numbers as numbers)", () => {
    const { problem, names } = compileJModel(SUPPLY, DATA);
    expect([...names.constraints.keys()]).toEqual(problem.constraints.map((c) => c.name));
    expect([...names.variables.keys()]).toEqual(problem.variables.map((v) => v.name));
    expect(names.constraints.get("within_capacity[north,2]")).toEqual({ family: "within_capacity", index: ["north", 2] });
    expect(names.constraints.get("meet_demand[2]")).toEqual({ family: "meet_demand", index: [2] });
    expect(names.constraints.get("unused")).toEqual({ family: "unused", index: [] });
    expect(names.variables.get("spare")).toEqual({ family: "spare", index: [] });
  });

  it("survives its stored JSON form unchanged", () => {
    const { names } = compileJModel(SUPPLY, DATA);
    const back = modelNamesOf(JSON.parse(JSON.stringify(storedModelNames(names))));
    expect(back).toEqual(names);
  });

  it("names the members of an infeasible subset by family and index, and leaves unknown names as they are", () => {
    const { names } = compileJModel(SUPPLY, DATA);
    const subset: Infeasibility = {
      constraints: [{ name: "meet_demand[2]" }, { name: "within_capacity[north,2]" }, { name: "not_from_the_model" }],
      variable_bounds: [{ variable: "spare", bound: "upper" }],
      method: "solver_iis",
      irreducible: true,
      verified: true,
      verdict_check: { status: "confirmed", solver: "highs", message: "highs proved a subset of the model infeasible" },
    };
    expect(nameInfeasibility(subset, names)).toEqual({
      ...subset,
      constraints: [
        { name: "meet_demand[2]", family: "meet_demand", index: [2] },
        { name: "within_capacity[north,2]", family: "within_capacity", index: ["north", 2] },
        { name: "not_from_the_model" },
      ],
      variable_bounds: [{ variable: "spare", bound: "upper", family: "spare", index: [] }],
    });
  });
});
