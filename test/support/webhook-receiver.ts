import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver on 127.0.0.1 for tests: records every request with its raw body, and answers with
 * the status the test scripts (one per request, then the last one again; `HANG` holds the request open
 * without an answer, as a receiver that hangs). It verifies signatures the way
 * a real receiver would, from the raw bytes, independently of the service's own signing code.
 */
export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  at: number;
  answered: number;
}

/** A scripted "status" that never answers: the request stays open until the caller gives up or the receiver stops. */
export const HANG = 0;

export class WebhookReceiver {
  readonly requests: Received[] = [];
  private server: http.Server | null = null;
  private waiters: (() => void)[] = [];
  private readonly hanging = new Set<http.ServerResponse>();
  url = "";

  constructor(private statuses: number[] = [200]) {}

  answerWith(...statuses: number[]): void {
    this.statuses = statuses;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const status = this.statuses[Math.min(this.requests.length, this.statuses.length - 1)]!;
        let body: unknown = null;
        try {
          body = JSON.parse(raw);
        } catch {
          // recorded raw
        }
        this.requests.push({ headers: req.headers, raw, body, at: Date.now(), answered: status });
        if (status === HANG) {
          this.hanging.add(res);
          res.on("close", () => this.hanging.delete(res));
        } else res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "not now");
        this.waiters.splice(0).forEach((w) => w());
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/incumbent?token=abc`;
    return this;
  }

  /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 30_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver got ${this.requests.length} of ${count} requests in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.requests.slice(0, count);
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const equal = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** X-Incumbent-Signature: hex HMAC-SHA256 of the raw body with the secret's UTF-8 bytes. */
export function verifyIncumbentSignature(r: Received, secret: string): boolean {
  const expected = createHmac("sha256", secret).update(r.raw).digest("hex");
  const got = r.headers["x-incumbent-signature"];
  return typeof got === "string" && equal(got, expected);
}

/** Standard Webhooks: some `v1,<base64>` entry of webhook-signature is HMAC("<id>.<ts>.<body>"), and ts is recent. */
export function verifyStandardWebhook(r: Received, secret: string, toleranceSeconds = 300): boolean {
  const id = r.headers["webhook-id"];
  const ts = r.headers["webhook-timestamp"];
  const sig = r.headers["webhook-signature"];
  if (typeof id !== "string" || typeof ts !== "string" || typeof sig !== "string") return false;
  if (Math.abs(Date.now() / 1000 - Number(ts)) > toleranceSeconds) return false;
  const key = secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret);
  const expected = createHmac("sha256", key).update(`${id}.${ts}.${r.raw}`).digest("base64");
  return sig.split(" ").some((entry) => entry.startsWith("v1,") && equal(entry.slice(3), expected));
}
