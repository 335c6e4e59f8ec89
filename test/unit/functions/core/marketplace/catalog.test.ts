import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileJModel } from "../../../../../functions/core/jmodel/index.js";
import { marketplaceModel, marketplaceModels } from "../../../../../functions/core/marketplace/catalog.js";
import { CATALOG_FILE, readCatalog, renderCatalog } from "../../../../../scripts/build-marketplace.js";

describe("marketplace catalog", () => {
  it("is the example models as they are in examples/jmodel (regenerate with npm run marketplace)", () => {
    expect(readFileSync(CATALOG_FILE, "utf8")).toBe(renderCatalog(readCatalog()));
  });

  it("offers the five classic models, each compiling with every dataset it ships", () => {
    expect(marketplaceModels().map((m) => m.id)).toEqual(["diet", "facility-location", "knapsack", "production-planning", "transportation"]);
    for (const m of marketplaceModels()) {
      expect(m.title.length, m.id).toBeGreaterThan(3);
      expect(m.datasets.length, m.id).toBeGreaterThan(0);
      for (const d of m.datasets) expect(compileJModel(m.jmodel_source, d.data).problem.variables.length, `${m.id}/${d.name}`).toBeGreaterThan(0);
    }
    expect(() => marketplaceModel("nope")).toThrow(/not found/);
  });
});
