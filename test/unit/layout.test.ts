import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const UNIT = path.join(ROOT, "test/unit");

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? testFiles(full) : entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

describe("test/unit layout", () => {
  it("mirrors the source tree: a unit test sits in the folder of what it tests", () => {
    const misplaced = testFiles(UNIT)
      .map((file) => path.relative(UNIT, path.dirname(file)))
      .filter((dir) => dir !== "" && !existsSync(path.join(ROOT, dir)));
    expect(misplaced).toEqual([]);
  });

  it("keeps at the top only the tests of the repository as a whole", () => {
    const top = readdirSync(UNIT).filter((name) => name.endsWith(".test.ts"));
    expect(top.sort()).toEqual(["install.test.ts", "layers.test.ts", "layout.test.ts", "readme-config.test.ts"]);
  });
});
