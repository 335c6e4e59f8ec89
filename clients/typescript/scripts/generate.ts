import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { GENERATED_TYPES_PATH, renderTypes, servedDocument } from "./openapi-types.js";

/**
 * Regenerates src/openapi.generated.ts from the service's OpenAPI document: by default the one the
 * app in this repository serves, or with --url the one a running service serves. --check writes
 * nothing and exits 1 when the committed file is out of date.
 */
const { values } = parseArgs({ options: { url: { type: "string" }, check: { type: "boolean", default: false } } });
const text = await renderTypes(await servedDocument(values.url));
let committed = "";
try {
  committed = readFileSync(GENERATED_TYPES_PATH, "utf8");
} catch {
  // first generation
}
if (values.check) {
  if (committed !== text) {
    console.error("src/openapi.generated.ts differs from the served OpenAPI document: run npm run generate -w @incumbent/client");
    process.exit(1);
  }
  console.log("src/openapi.generated.ts matches the served OpenAPI document");
} else if (committed === text) {
  console.log("src/openapi.generated.ts is up to date");
} else {
  writeFileSync(GENERATED_TYPES_PATH, text);
  console.log(`wrote src/openapi.generated.ts (${text.length} characters)`);
}
