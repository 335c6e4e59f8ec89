import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { MAX_BODY_MB, type Organization } from "./fuzz-stack.js";
import { admittedValue, brokenValueOf, hostileValue, type JsonSchema, toJsonText } from "./schema-arbitrary.js";

/**
 * Requests generated from one operation of the OpenAPI document: its credential, path and query
 * parameters and body each drawn from what the document declares, bent or broken. Each request is
 * labelled with what the document obliges the service to answer:
 *  - `refuse`: the document refuses it (no or a bad credential, a body its schema rejects, malformed
 *    JSON, another media type, a body past the ceiling, an id no record has): 4xx, nothing stored or charged;
 *  - `foreign`: a valid request naming another organization's real record: 404, nothing stored or charged;
 *  - `open`: the document admits it; the service may accept or refuse it.
 */
export type Expectation = "refuse" | "foreign" | "open";

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  expect: Expectation;
  /** What was bent, for a failure's message. */
  why: string;
}

export interface Operation {
  id: string;
  method: string;
  template: string;
  op: JsonSchema;
}

export function operationsOf(doc: JsonSchema): Operation[] {
  const out: Operation[] = [];
  for (const [template, methods] of Object.entries<JsonSchema>(doc.paths)) {
    for (const [method, op] of Object.entries<JsonSchema>(methods)) out.push({ id: op.operationId, method: method.toUpperCase(), template, op });
  }
  return out;
}

export interface Callers {
  own: Organization;
  other: Organization;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/** Ids no record has, and ids that try to leave their segment. */
const strangeId = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
  fc.constantFrom("..", "../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "%2e%2e%2f%2e%2e%2fsecrets", "..\\..\\windows", "%00", "prj_%00", "*", "ORG#x", "null"),
  fc.integer({ min: 2_000, max: 9_000 }).map((n) => "z".repeat(n)),
);

const wrongContentType = fc.constantFrom(
  "text/plain",
  "application/xml",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/octet-stream",
  "text/json",
  "application/jsonx",
);

const malformedJson = fc.oneof(
  fc.constantFrom("{", "}", "[", '{"a":}', "{'a': 1}", '{"a": 1,}', "\uFEFF{}x", "nul", "NaN", '{"a": "\\u12"}', '{"a" 1}', "\u0000"),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify({ v }).slice(0, -1)),
  fc.string({ minLength: 1, maxLength: 30 }).filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  }),
);

/** A JSON body a little past the ceiling (MAX_REQUEST_BODY_MB in the fuzz stack). */
const oversizeBody = fc.constant(JSON.stringify({ name: "o".repeat(MAX_BODY_MB * 1024 * 1024 + 64) }));

export class RequestFactory {
  private readonly ajv: Ajv2020;
  private readonly bodyValidators = new Map<string, ValidateFunction>();

  constructor(
    private readonly doc: JsonSchema,
    private readonly callers: Callers,
  ) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema(doc, "openapi");
  }

  /** Whether the document admits `body` (already parsed) for the operation. */
  admits(o: Operation, body: unknown): boolean {
    let v = this.bodyValidators.get(o.id);
    if (!v) {
      v = this.ajv.getSchema(`openapi#/${pointer("paths", o.template, o.method.toLowerCase(), "requestBody", "content", "application/json", "schema")}`)!;
      this.bodyValidators.set(o.id, v);
    }
    return v(body) === true;
  }

  arbitrary(o: Operation): fc.Arbitrary<FuzzRequest> {
    const { own, other } = this.callers;
    const security: JsonSchema[] = o.op.security ?? [];
    const schemes = new Set(security.flatMap((s) => Object.keys(s)));
    const params: JsonSchema[] = o.op.parameters ?? [];
    const pathParams = params.filter((p) => p.in === "path");
    const queryParams = params.filter((p) => p.in === "query");
    const jsonBody: JsonSchema | undefined = o.op.requestBody?.content?.["application/json"]?.schema;
    const rawTypes = Object.keys(o.op.requestBody?.content ?? {});
    const isRaw = jsonBody !== undefined && Object.keys(jsonBody).length === 0;

    // Credential: the own organization's key mostly; a session, a viewer-less garbage token, none.
    type Credential = { header?: string; valid: boolean; why: string };
    const credentials: fc.Arbitrary<Credential>[] = [];
    if (schemes.has("apiKey")) credentials.push(fc.constant({ header: `Bearer ${own.apiKey}`, valid: true, why: "api key" }));
    if (schemes.has("sessionJwt")) credentials.push(fc.constant({ header: `Bearer ${own.ids.session![0]}`, valid: true, why: "session" }));
    if (schemes.has("apiKey") && !schemes.has("sessionJwt")) {
      credentials.push(fc.constant({ header: `Bearer ${own.ids.session![0]}`, valid: false, why: "session where a key is due" }));
    }
    if (security.length > 0) {
      credentials.push(
        fc.constant({ valid: false, why: "no credential" }),
        fc
          .oneof(
            fc.string({ maxLength: 60 }),
            fc.constantFrom("Bearer", "Bearer ", "Basic dXNlcjpwYXNz", `bearer ${own.apiKey}x`, `Bearer ${own.apiKey.slice(0, -2)}`),
          )
          .filter((h) => !/[\r\n\0]/.test(h) && /^[\x20-\x7e]*$/.test(h))
          .map((header) => ({ header: header.startsWith("B") || header === "" ? header : `Bearer ${header}`, valid: false, why: "bad credential" })),
      );
    }
    const credential: fc.Arbitrary<Credential> =
      credentials.length === 0
        ? fc.constant({ valid: true, why: "public" })
        : fc.oneof(...credentials.map((arbitrary, i) => ({ arbitrary, weight: i === 0 ? 6 : 1 })));

    // Path: each parameter an own real id, another organization's real id, or a strange one.
    type PathChoice = { url: string; foreign: boolean; unknown: boolean; why: string };
    const pathArb: fc.Arbitrary<PathChoice> = fc
      .tuple(
        ...pathParams.map((p) => {
          const mine = own.ids[p.name] ?? [];
          const theirs = other.ids[p.name] ?? [];
          const options: fc.Arbitrary<{ value: string; kind: "own" | "foreign" | "strange" }>[] = [
            strangeId.map((value) => ({ value, kind: "strange" as const })),
          ];
          if (mine.length) options.push(fc.constantFrom(...mine).map((value) => ({ value, kind: "own" as const })));
          if (theirs.length) options.push(fc.constantFrom(...theirs).map((value) => ({ value, kind: "foreign" as const })));
          return fc.oneof(...options);
        }),
      )
      .map((values) => {
        let url = o.template;
        values.forEach((v, i) => {
          url = url.replace(`{${pathParams[i]!.name}}`, encodeURIComponent(v.value));
        });
        return {
          url,
          foreign: values.some((v) => v.kind === "foreign"),
          unknown: values.some((v) => v.kind === "strange"),
          why: values.map((v) => v.kind).join(","),
        };
      });

    const queryArb: fc.Arbitrary<string> = fc
      .tuple(
        ...queryParams.map((p) =>
          fc.option(
            fc.oneof(
              admittedValue(p.schema ?? {}, this.doc).map(String),
              fc.string({ maxLength: 12 }),
              fc.constantFrom("-1", "1e999", "NaN", "9".repeat(40), "true"),
            ),
            { nil: undefined },
          ),
        ),
      )
      .map((values) => {
        const q = new URLSearchParams();
        values.forEach((v, i) => {
          if (v !== undefined) q.set(queryParams[i]!.name, v);
        });
        const s = q.toString();
        return s ? `?${s}` : "";
      });

    // Body: valid by the schema, broken in one place, malformed JSON, another media type, oversize.
    type BodyChoice = { text?: string; contentType?: string; refused: boolean; why: string };
    let bodyArb: fc.Arbitrary<BodyChoice> = fc.constant({ refused: false, why: "no body" });
    if (jsonBody && !isRaw) {
      const asJson = (v: unknown, why: string): BodyChoice => {
        const text = toJsonText(v);
        return { text, contentType: "application/json", refused: !this.admits(o, JSON.parse(text)), why };
      };
      bodyArb = fc.oneof(
        { arbitrary: admittedValue(jsonBody, this.doc).map((v) => asJson(v, "schema-valid body")), weight: 16 },
        { arbitrary: brokenValueOf(jsonBody, this.doc).map((v) => asJson(v, "broken body")), weight: 16 },
        { arbitrary: malformedJson.map((text) => ({ text, contentType: "application/json", refused: true, why: "malformed JSON" })), weight: 4 },
        {
          arbitrary: fc.tuple(admittedValue(jsonBody, this.doc), wrongContentType).map(([v, contentType]) => ({
            text: toJsonText(v),
            contentType,
            refused: true,
            why: `content type ${contentType}`,
          })),
          weight: 4,
        },
        // Rare (each costs a megabyte), yet some dozens per operation.
        { arbitrary: oversizeBody.map((text) => ({ text, contentType: "application/json", refused: true, why: "oversize body" })), weight: 1 },
      );
    } else if (rawTypes.length > 0) {
      bodyArb = fc.oneof(
        fc.tuple(fc.constantFrom(...rawTypes), fc.oneof(hostileValue.map(toJsonText), fc.string({ maxLength: 200 }))).map(([contentType, text]) => ({
          text,
          contentType: contentType.startsWith("multipart/") ? `${contentType}; boundary=fuzz` : contentType,
          refused: false,
          why: `raw ${contentType}`,
        })),
        fc
          .tuple(
            fc.string({ maxLength: 100 }),
            wrongContentType.filter((t) => !rawTypes.some((r) => t.startsWith(r))),
          )
          .map(([text, contentType]) => ({
            text,
            contentType,
            refused: true,
            why: `content type ${contentType}`,
          })),
        oversizeBody.map((text) => ({ text, contentType: rawTypes[0]!, refused: true, why: "oversize body" })),
      );
    }

    // Fire: the trigger's secret in the header or the body, another trigger's, or none.
    const fire = schemes.has("triggerSecret");
    const ownSecrets = Object.values(own.triggerSecrets);
    const otherSecrets = Object.values(other.triggerSecrets);
    const fireCredential = fc.constantFrom("header:own", "body:own", "header:other", "none", "header:api-key");

    return fc.tuple(credential, pathArb, queryArb, bodyArb, fireCredential).map(([cred, path, query, body, fireWith]) => {
      const headers: Record<string, string> = {};
      let bodyText = body.text;
      let credentialValid = cred.valid;
      let why = `${cred.why}; ids ${path.why || "-"}; ${body.why}`;
      let foreign = path.foreign;
      if (fire) {
        const trigger = decodeURIComponent(path.url.split("/")[4] ?? "");
        const secrets = { ...this.callers.other.triggerSecrets, ...this.callers.own.triggerSecrets };
        const secret = fireWith.endsWith("own") ? (this.callers.own.triggerSecrets[trigger] ?? ownSecrets[0]!) : otherSecrets[0]!;
        if (fireWith === "header:api-key") headers.authorization = `Bearer ${this.callers.own.apiKey}`;
        else if (fireWith.startsWith("header")) headers.authorization = `Bearer ${secret}`;
        let sent = fireWith.startsWith("header:") && fireWith !== "header:api-key";
        if (fireWith === "body:own" && !body.refused && bodyText) {
          const parsed = JSON.parse(bodyText);
          if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
            bodyText = toJsonText({ ...parsed, trigger_secret: secret });
            sent = true;
          }
        }
        // The trigger's own secret fires it, whichever organization owns it: that is not a foreign request.
        credentialValid = sent && secrets[trigger] === secret;
        if (credentialValid) foreign = false;
        why = `fire ${fireWith}; ids ${path.why}; ${body.why}`;
      } else if (cred.header !== undefined) headers.authorization = cred.header;
      if (body.contentType) headers["content-type"] = body.contentType;
      // Streamable HTTP (MCP) needs both; a client that sends neither is refused too.
      if (rawTypes.length > 0 && cred.valid && body.why.startsWith("raw")) headers.accept = "application/json, text/event-stream";
      const refused = !credentialValid || body.refused || (path.unknown && !foreign);
      // A client resolves dot segments (`/batches/..` is `/solvers/compare`): that request is another operation's.
      const resolvedElsewhere = new URL(`http://x${path.url}`).pathname !== path.url;
      const expect: Expectation = resolvedElsewhere
        ? "open"
        : foreign && credentialValid && !body.refused && !path.unknown
          ? "foreign"
          : refused
            ? "refuse"
            : "open";
      return { method: o.method, url: path.url + query, headers, body: bodyText, expect, why };
    });
  }
}
