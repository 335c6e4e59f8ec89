import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeApp } from "../../../../support/fake-api.js";
import { REPO_ROOT } from "../../../../support/machine.js";

const run = promisify(execFile);

type Json = Record<string, any>;

interface LintProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer?: string }[];
}

/** The document exactly as the app serves it. */
async function servedDocument(): Promise<{ text: string; doc: Json }> {
  const res = await fakeApp().app.request("/api/v2/openapi.json");
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, doc: JSON.parse(text) as Json };
}

/**
 * Generators and validating proxies read the document with outside tools (issue 27, Build 6). Redocly
 * CLI, a well-kept OpenAPI linter, lints the served document with the repository's redocly.yaml
 * (its recommended rules, no telemetry, no network).
 */
describe("the served OpenAPI document under an outside linter", () => {
  let dir: string;
  let served: { text: string; doc: Json };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "openapi-lint-"));
    served = await servedDocument();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("has no error under redocly lint (its recommended rules)", { timeout: 120_000 }, async () => {
    const file = path.join(dir, "openapi.json");
    writeFileSync(file, served.text);
    const cli = path.join(REPO_ROOT, "node_modules/.bin/redocly");
    const out = await run(cli, ["lint", file, "--config", path.join(REPO_ROOT, "redocly.yaml"), "--format", "json"], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
      maxBuffer: 1 << 26,
    }).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? "", stderr: error.stderr ?? "" }));
    const report = JSON.parse(out.stdout.slice(out.stdout.indexOf("{"))) as { problems: LintProblem[] };
    const errors = report.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(errors).toEqual([]);
    // Warnings are shown, not failed on: ambiguous paths are the spec's own, health answers no 4xx.
    const warnings = report.problems.filter((p) => p.severity === "warn").map((p) => p.ruleId);
    console.log(`[redocly lint] ${warnings.length} warnings: ${[...new Set(warnings)].join(", ")}`);
  });

  it("names a server (an empty servers array is an error to generators)", () => {
    expect(served.doc.servers).toEqual([{ url: "/", description: "The host serving this document" }]);
  });
});

/**
 * A validating proxy's view of a fire: the request must meet one of the operation's security
 * requirements (OpenAPI 3.1, Security Requirement Object: an empty one, `{}`, makes the others
 * optional) and its body must match the declared schema.
 */
describe("a fire with the trigger's secret in the body, as a validating proxy sees it", () => {
  let fire: Json;
  let validBody: (body: unknown) => boolean;

  beforeAll(async () => {
    const { doc } = await servedDocument();
    fire = doc.paths["/api/v2/triggers/{trigger_id}/fire"].post;
    const ajv = new Ajv2020({ strict: false });
    validBody = ajv.compile(fire.requestBody.content["application/json"].schema);
  });

  /** Whether a request with these headers meets one of the security requirements. */
  const meetsSecurity = (headers: Record<string, string>) =>
    (fire.security as Json[]).some((requirement) =>
      Object.keys(requirement).every((scheme) => scheme === "triggerSecret" && /^Bearer \S+$/.test(headers.authorization ?? "")),
    );

  it("accepts the secret in the body with no Authorization header", () => {
    expect(meetsSecurity({})).toBe(true);
    expect(validBody({ trigger_secret: "trg_sec_0123456789", override_data: { demand: 3 } })).toBe(true);
  });

  it("accepts the secret in the header with no body at all (the body is optional)", () => {
    expect(meetsSecurity({ authorization: "Bearer trg_sec_0123456789" })).toBe(true);
    expect(fire.requestBody.required).toBe(false);
  });

  it("still declares the header's scheme, and what the body field is", () => {
    expect(fire.security).toContainEqual({ triggerSecret: [] });
    expect(fire.requestBody.content["application/json"].schema.properties.trigger_secret.description).toMatch(/instead of Authorization: Bearer/);
    expect(validBody({ trigger_secret: 7 })).toBe(false);
  });
});
