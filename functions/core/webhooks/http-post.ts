import http from "node:http";
import https from "node:https";
import { DestinationRefused, guardedLookup, refusedHost } from "./destination.js";

/**
 * One delivery attempt over HTTP. Node's http client follows no redirects, so a 3xx is simply a
 * failed attempt; the whole attempt (connect, TLS, response head) is bounded by `timeoutMs`; the
 * response body is drained and ignored (only the status and `Retry-After` matter).
 */
export interface PostOutcome {
  statusCode: number | null;
  retryAfter: string | null;
  /** Why there is no status (timeout, connection refused, destination refused). */
  error: string | null;
  /** The destination is not allowed: trying again will not help. */
  refused: boolean;
  durationMs: number;
}

export interface PostOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
}

/** POSTs `body` with `headers` to `url`. */
export type WebhookPoster = (url: string, request: { body: string; headers: Record<string, string> }, options: PostOptions) => Promise<PostOutcome>;

export const postWebhook: WebhookPoster = (rawUrl, { body, headers }, options) => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const done = (outcome: Omit<PostOutcome, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const fail = (error: Error) => done({ statusCode: null, retryAfter: null, error: error.message, refused: error instanceof DestinationRefused });

    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return fail(new DestinationRefused("the webhook URL is not valid"));
    }
    // An IP literal never goes through DNS, so the lookup guard cannot see it: the same rule as at save time.
    const refusal = options.allowPrivateNetworks ? null : refusedHost(url.hostname);
    if (refusal) return fail(new DestinationRefused(refusal));
    const client = url.protocol === "https:" ? https : url.protocol === "http:" ? http : null;
    if (!client) return fail(new DestinationRefused(`${url.protocol} is not an allowed scheme`));

    timer = setTimeout(() => {
      request.destroy(new Error(`no response within ${Math.round(options.timeoutMs / 1000)} s`));
    }, options.timeoutMs);
    const request = client.request(url, {
      method: "POST",
      headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
      lookup: guardedLookup({ allowPrivate: options.allowPrivateNetworks }),
      agent: false,
    });
    request.on("response", (response) => {
      response.resume(); // drain and ignore the body
      const retryAfter = response.headers["retry-after"];
      done({ statusCode: response.statusCode ?? null, retryAfter: typeof retryAfter === "string" ? retryAfter : null, error: null, refused: false });
      response.on("error", () => undefined);
      response.destroy();
    });
    request.on("error", fail);
    request.end(body);
  });
};
