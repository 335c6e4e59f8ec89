import { contractOf } from "./contract.js";

/**
 * A small HTTP client for tests: JSON in, JSON out, bearer credential by default. Every response it
 * receives is checked against the service's OpenAPI document (support/contract.ts): an undocumented
 * status or field fails the test that made the call.
 */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null,
  ) {}

  as(token: string | null): Api {
    return new Api(this.baseUrl, token);
  }

  async request<T = any>(
    method: string,
    path: string,
    { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const init: RequestInit = { method, headers: { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] ??= "application/json";
    }
    return this.send<T>(method, path, init);
  }

  /** Any request (a multipart upload, a chosen content type), checked against the contract like the rest. */
  async send<T = any>(method: string, path: string, init: RequestInit): Promise<ApiResponse<T>> {
    const headers = new Headers(init.headers);
    if (this.token && !headers.has("authorization")) headers.set("authorization", `Bearer ${this.token}`);
    const res = await fetch(this.baseUrl + path, { ...init, method, headers });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (the HTML reference page)
    }
    const response = { status: res.status, headers: res.headers, body: parsed as T, text };
    (await contractOf(this.baseUrl)).validate(method, new URL(this.baseUrl + path).pathname, response);
    return response;
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>("GET", path, { headers });
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>("POST", path, { body: body ?? {}, headers });
  }
  put<T = any>(path: string, body?: unknown) {
    return this.request<T>("PUT", path, { body: body ?? {} });
  }
  patch<T = any>(path: string, body?: unknown) {
    return this.request<T>("PATCH", path, { body: body ?? {} });
  }
  delete<T = any>(path: string) {
    return this.request<T>("DELETE", path);
  }
}
