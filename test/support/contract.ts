import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * The service's OpenAPI document as a response contract: every response the test client receives is
 * checked against the operation it answers (its status must be documented, its JSON body must match
 * the schema, which is closed, so an undocumented field fails), and a request to a path no operation
 * has must be answered 404 NotFound, or 405 MethodNotAllowed when another method has it. ajv (JSON
 * Schema 2020-12, OpenAPI 3.1's dialect) does the validating.
 */
type Json = Record<string, any>;

interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  responses: Json;
}

export class ContractViolation extends Error {
  override name = "ContractViolation";
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/** Operations the test client has seen answered, by operation id (or `unmatched`), across this process. */
export const contractCoverage = new Map<string, number>();

export class Contract {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema(doc, "openapi");
    for (const [template, methods] of Object.entries<Json>(doc.paths)) {
      const params = (template.match(/\{[^}]+\}/g) ?? []).length;
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}/?$`);
      for (const [method, op] of Object.entries<Json>(methods)) {
        this.operations.push({ id: op.operationId, method: method.toUpperCase(), template, pattern, params, responses: op.responses });
      }
    }
    // A static segment wins over a parameter (…/compare/batches before …/compare/{comparison_id}).
    this.operations.sort((a, b) => a.params - b.params);
  }

  /** The node at a JSON pointer into the document (`/components/responses/NotFound`). */
  private resolve(at: string): Json | undefined {
    return at
      .split("/")
      .slice(1)
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<Json | undefined>((node, key) => node?.[key], this.doc);
  }

  private validator(ref: string): ValidateFunction {
    let v = this.validators.get(ref);
    if (!v) {
      v = this.ajv.getSchema(`openapi#${ref}`);
      if (!v) throw new ContractViolation(`no schema at ${ref}`);
      this.validators.set(ref, v);
    }
    return v;
  }

  private check(ref: string, body: unknown, where: string): void {
    const validate = this.validator(ref);
    if (validate(body)) return;
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`).slice(0, 8);
    throw new ContractViolation(`${where}: the body does not match the document:\n  ${errors.join("\n  ")}\nbody: ${JSON.stringify(body).slice(0, 1500)}`);
  }

  /** Throws a ContractViolation when the response is not one the document allows. */
  validate(method: string, pathname: string, response: { status: number; headers: Headers; body: unknown; text: string }): void {
    const upper = method.toUpperCase();
    if (upper === "HEAD" || upper === "OPTIONS") return;
    const where = `${upper} ${pathname} → ${response.status}`;
    const isJson = (response.headers.get("content-type") ?? "").startsWith("application/json");
    const onPath = this.operations.filter((o) => o.pattern.test(pathname));
    const op = onPath.find((o) => o.method === upper);
    if (!response.headers.get("x-request-id")) throw new ContractViolation(`${where}: no X-Request-Id`);
    if (!op) {
      count("unmatched");
      const expected = response.status === 429 ? "RateLimitExceeded" : onPath.length > 0 ? "MethodNotAllowed" : "NotFound";
      const status = { RateLimitExceeded: 429, MethodNotAllowed: 405, NotFound: 404 }[expected];
      if (response.status !== status) throw new ContractViolation(`${where}: no operation has this method and path, so ${status} was due`);
      this.check(`/components/schemas/${expected}`, response.body, where);
      return;
    }
    count(op.id);
    const status = response.status in op.responses ? String(response.status) : "default";
    // An error response is a `$ref` to a shared one in components.responses: its schema is read there.
    const written: Json | undefined = op.responses[status];
    const shared = typeof written?.$ref === "string" ? (written.$ref as string).replace(/^#/, "") : null;
    const documented: Json | undefined = shared ? this.resolve(shared) : written;
    if (!documented) {
      throw new ContractViolation(
        `${where} (${op.id}): status ${response.status} is not documented; documented: ${Object.keys(op.responses).join(", ")}\n${response.text.slice(0, 800)}`,
      );
    }
    const content: Json | undefined = documented.content;
    if (!content) {
      if (response.text !== "") throw new ContractViolation(`${where} (${op.id}): the document says no body, got ${response.text.slice(0, 200)}`);
      return;
    }
    if (isJson && content["application/json"]) {
      const at = shared ?? `/${pointer("paths", op.template, op.method.toLowerCase(), "responses", status)}`;
      this.check(`${at}/${pointer("content", "application/json", "schema")}`, response.body, `${where} (${op.id})`);
      return;
    }
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
    if (!Object.keys(content).includes(type)) throw new ContractViolation(`${where} (${op.id}): content type ${type} is not documented`);
  }
}

const contracts = new Map<string, Promise<Contract>>();

/** The contract of the service at `baseUrl`, read once per process from its own OpenAPI document. */
export function contractOf(baseUrl: string): Promise<Contract> {
  let c = contracts.get(baseUrl);
  if (!c) {
    c = (async () => {
      const res = await fetch(`${baseUrl}/api/v2/openapi.json`);
      if (res.status !== 200) throw new Error(`no OpenAPI document at ${baseUrl}: ${res.status}`);
      return new Contract((await res.json()) as Json);
    })();
    c.catch(() => contracts.delete(baseUrl));
    contracts.set(baseUrl, c);
  }
  return c;
}

/** With CONTRACT_COVERAGE_DIR set, each test process keeps the operations it saw validated in a file there. */
const coverageDir = process.env.CONTRACT_COVERAGE_DIR;
const coverageFile = coverageDir ? path.join(coverageDir, `${process.pid}-${Date.now()}.json`) : null;

function count(key: string): void {
  contractCoverage.set(key, (contractCoverage.get(key) ?? 0) + 1);
  if (!coverageFile) return;
  mkdirSync(coverageDir!, { recursive: true });
  writeFileSync(coverageFile, JSON.stringify(Object.fromEntries(contractCoverage)));
}
