/**
 * The console's only way to the service: same-origin fetches to /api/v2 with the credential the user
 * gave (a session token from POST /auth/login, or a pasted API key) as a bearer header. The credential
 * lives in sessionStorage, so it ends with the tab; nothing is stored in cookies and the page carries
 * no secret of its own.
 */
const STORE_KEY = "incumbent.credential";

/** A response body as the service sends it; pages read the fields the API contract names. */
// biome-ignore lint/suspicious/noExplicitAny: JSON from the service, read field by field
export type Json = any;

export interface Credential {
  kind: "session" | "api_key";
  token: string;
  /** who signed in, for the header */
  label: string;
}

export function loadCredential(): Credential | null {
  try {
    const raw = sessionStorage.getItem(STORE_KEY);
    return raw ? (JSON.parse(raw) as Credential) : null;
  } catch {
    return null;
  }
}

export function saveCredential(credential: Credential | null): void {
  if (credential) sessionStorage.setItem(STORE_KEY, JSON.stringify(credential));
  else sessionStorage.removeItem(STORE_KEY);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describeError(status, body));
  }
}

/** The service's error bodies carry `detail` (string or validation issues) or `message`. */
function describeError(status: number, body: unknown): string {
  if (body && typeof body === "object") {
    const b = body as Record<string, unknown>;
    if (typeof b.detail === "string") return b.detail;
    if (Array.isArray(b.detail)) return b.detail.map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join(".")}: ${d.msg}`).join("; ");
    if (typeof b.message === "string") return b.message;
  }
  return `HTTP ${status}`;
}

let current: Credential | null = loadCredential();
export const setCurrentCredential = (credential: Credential | null) => {
  current = credential;
  saveCredential(credential);
};
export const currentCredential = () => current;

function headers(extra: Record<string, string> = {}, token = current?.token): Record<string, string> {
  return { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra };
}

/** Fired when the signed-in credential stops working (a session expired, a key was revoked). */
export const CREDENTIAL_REFUSED = "incumbent:credential-refused";

export async function api<T = Json>(method: string, path: string, body?: unknown, options: { token?: string } = {}): Promise<T> {
  const token = options.token ?? current?.token;
  const init: RequestInit = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }, token) };
  if (body !== undefined) init.body = JSON.stringify(body);
  return send<T>(path, init, token);
}

/**
 * POSTs a file as multipart/form-data (field `file`): its bytes as they are on disk, so a
 * gzip-compressed model travels compressed and the service decompresses it.
 */
export async function uploadFile<T = Json>(path: string, file: File): Promise<T> {
  const form = new FormData();
  form.set("file", file, file.name);
  const token = current?.token;
  return send<T>(path, { method: "POST", headers: headers({}, token), body: form }, token);
}

async function send<T>(path: string, init: RequestInit, token: string | undefined): Promise<T> {
  const res = await fetch(path, init);
  const text = await res.text();
  const parsed = text ? safeJson(text) : null;
  if (res.status === 401 && token && token === current?.token) dispatchEvent(new Event(CREDENTIAL_REFUSED));
  if (!res.ok) throw new ApiError(res.status, parsed);
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface StreamEvent {
  event: string;
  data: Json;
}

/**
 * Reads a Server-Sent Events stream with fetch: EventSource cannot send an Authorization header, and
 * the console uses no other credential. Resolves when the stream ends or `signal` aborts.
 */
export async function readEvents(path: string, onEvent: (e: StreamEvent) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(path, { headers: headers({ Accept: "text/event-stream" }), signal });
  if (!res.ok || !res.body) throw new ApiError(res.status, safeJson(await res.text()));
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of message.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length > 0) onEvent({ event, data: safeJson(data.join("\n")) });
      end = buffer.indexOf("\n\n");
    }
  }
}
