/**
 * A readable API reference rendered on the server from the OpenAPI document: plain HTML and CSS, no
 * script, nothing from a CDN, so it works offline and under a strict Content-Security-Policy.
 */
// biome-ignore lint/suspicious/noExplicitAny: walks arbitrary JSON Schema documents
type Json = Record<string, any>;

const esc = (s: unknown): string => String(s ?? "").replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

function typeOf(s: Json | undefined): string {
  if (!s) return "any";
  if (s.$ref) return String(s.$ref).split("/").pop()!;
  if (s.enum) return s.enum.map((v: unknown) => JSON.stringify(v)).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeOf).join(" | ");
  if (s.oneOf) return s.oneOf.map(typeOf).join(" | ");
  if (s.type === "array") return `${typeOf(s.items)}[]`;
  if (Array.isArray(s.type)) return s.type.join(" | ");
  return s.type ?? "object";
}

/** A named schema (a `$ref` into `components.schemas`) as written there, so its fields are listed where it is used. */
function sharedSchema(doc: Json, s: Json | undefined): Json | undefined {
  const prefix = "#/components/schemas/";
  return typeof s?.$ref === "string" && s.$ref.startsWith(prefix) ? (doc.components?.schemas?.[s.$ref.slice(prefix.length)] ?? s) : s;
}

function fields(doc: Json, schema: Json | undefined, depth = 0): string {
  const s = sharedSchema(doc, schema);
  if (!s || depth > 3) return "";
  const items = s.type === "array" ? sharedSchema(doc, s.items) : undefined;
  const props: Record<string, Json> | undefined = s.properties ?? items?.properties;
  if (!props) return "";
  const required: string[] = s.required ?? items?.required ?? [];
  const rows = Object.entries(props)
    .map(
      ([name, p]) =>
        `<tr><td><code>${esc(name)}</code>${required.includes(name) ? " <b>*</b>" : ""}</td><td><code>${esc(typeOf(p))}</code></td><td>${esc(p.description ?? "")}${
          p.default !== undefined ? ` <i>default ${esc(JSON.stringify(p.default))}</i>` : ""
        }${fields(doc, p, depth + 1)}</td></tr>`,
    )
    .join("");
  return `<table>${rows}</table>`;
}

/** A response as written, or the shared one in `components.responses` it points at (the error responses). */
function sharedResponse(doc: Json, r: Json): Json {
  const prefix = "#/components/responses/";
  return typeof r.$ref === "string" && r.$ref.startsWith(prefix) ? (doc.components?.responses?.[r.$ref.slice(prefix.length)] ?? r) : r;
}

export function renderReference(doc: Json): string {
  const sections: string[] = [];
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(ops)) {
      const tag = op.tags?.[0] ?? "Other";
      const params = (op.parameters ?? []) as Json[];
      const body = op.requestBody?.content?.["application/json"]?.schema;
      const responses = Object.entries<Json>(op.responses ?? {})
        .map(([status, r]) => [status, sharedResponse(doc, r)] as const)
        .map(([status, r]) => `<li><code>${esc(status)}</code> ${esc(r.description)}${fields(doc, r.content?.["application/json"]?.schema)}</li>`)
        .join("");
      const html = `<section id="${esc(op.operationId)}"><h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${esc(op.summary)}</p>${op.description ? `<p class="d">${esc(op.description)}</p>` : ""}
<p class="auth">Auth: ${op.security?.length ? esc(op.security.map((s: Json) => Object.keys(s)[0] ?? "the body's credential (trigger_secret)").join(" or ")) : "none (public)"}</p>
${params.length ? `<h4>Parameters</h4><table>${params.map((p) => `<tr><td><code>${esc(p.name)}</code>${p.required ? " <b>*</b>" : ""}</td><td>${esc(p.in)}</td><td><code>${esc(typeOf(p.schema))}</code></td></tr>`).join("")}</table>` : ""}
${body ? `<h4>Body</h4>${fields(doc, body)}` : ""}
<h4>Responses</h4><ul>${responses}</ul></section>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const nav = [...byTag.keys()].map((t) => `<a href="#tag-${esc(t)}">${esc(t)}</a>`).join(" · ");
  for (const [tag, items] of byTag) sections.push(`<h2 id="tag-${esc(tag)}">${esc(tag)}</h2>${items.join("")}`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)} reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d232a}
code{font:13px ui-monospace,monospace;background:#f3f4f6;padding:1px 4px;border-radius:3px}
section{border-top:1px solid #e5e7eb;padding:.5rem 0}table{border-collapse:collapse;margin:.3rem 0}td{border:1px solid #e5e7eb;padding:2px 8px;vertical-align:top}
.m{font:bold 12px monospace;padding:2px 6px;border-radius:3px;color:#fff;background:#6b7280}.get{background:#2563eb}.post{background:#16a34a}.delete{background:#dc2626}.patch,.put{background:#d97706}
.auth,.d{color:#4b5563}</style></head><body>
<h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><p>${esc(doc.info.description)}</p>
<p>Machine-readable: <a href="/api/v2/openapi.json">/api/v2/openapi.json</a></p><nav>${nav}</nav>${sections.join("")}</body></html>`;
}
