import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GENERATED_TYPES_PATH, renderTypes, servedDocument } from "../../../../../clients/typescript/scripts/openapi-types.js";

/**
 * The client's types are committed (a user of the package runs no generator); this test is what keeps
 * them the served document's: a route whose schema changed fails here until `npm run generate -w
 * @incumbent/client` is run and the new types committed.
 */
describe("the client's generated types", () => {
  it("are what openapi-typescript makes of the document the app serves", async () => {
    const committed = readFileSync(GENERATED_TYPES_PATH, "utf8");
    const fresh = await renderTypes(await servedDocument());
    // Not toEqual on 800 kB of text: the first differing line says what changed.
    const at = firstDifference(committed, fresh);
    expect(at, "src/openapi.generated.ts is stale: run npm run generate -w @incumbent/client").toBeNull();
  });

  it("change when a response schema changes (the check above can fail)", async () => {
    const doc = (await servedDocument()) as { paths: Record<string, any> };
    const balance = doc.paths["/api/v2/credits/balance"].get.responses["200"].content["application/json"].schema;
    balance.properties.renamed_field = { type: "string" };
    balance.required = [...balance.required, "renamed_field"];
    const changed = await renderTypes(doc);
    expect(firstDifference(readFileSync(GENERATED_TYPES_PATH, "utf8"), changed)).toMatch(/renamed_field/);
  });
});

/** The first line where the two texts differ, with its number, or null when they are equal. */
function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  const left = a.split("\n");
  const right = b.split("\n");
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] !== right[i]) return `line ${i + 1}: committed ${JSON.stringify(left[i])}, served ${JSON.stringify(right[i])}`;
  }
  return null;
}
