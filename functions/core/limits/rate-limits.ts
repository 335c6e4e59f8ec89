import type { Config, RateWindow } from "../config.js";
import { RateLimitError } from "../errors.js";
import { bindingWindow, type CounterStore, type ConsumeResult, type WindowSpec, type WindowState } from "../store/counters.js";

/**
 * The spec's rate limits. Statement A: every request per organization (120/min, 50,000/day); sign-in
 * and sign-up per client IP; password reset per e-mail address (3/hour). Statement B: per endpoint
 * class per organization (solve and execute 60/min, 10,000/day; model reads and the calculator
 * 120/min). A request counts against the organization's overall windows AND its class's windows,
 * all attributes of one item: one UpdateItem per request.
 */
export type EndpointClass = "solve" | "models_execute" | "models_read" | "credits_calculator" | "other";

export function classifyEndpoint(method: string, path: string): EndpointClass {
  const p = path.replace(/\/+$/, "");
  if (method === "POST" && (p === "/api/v2/solve" || p === "/api/v2/solve/async")) return "solve";
  if (method === "POST" && /^\/api\/v2\/models\/[^/]+\/execute$/.test(p)) return "models_execute";
  if (method === "GET" && p.startsWith("/api/v2/models/")) return "models_read";
  if (method === "POST" && p === "/api/v2/credits/calculator") return "credits_calculator";
  return "other";
}

const windows = (name: string, w: RateWindow): WindowSpec[] => [
  { name: `${name}-minute`, seconds: 60, limit: w.perMinute },
  { name: `${name}-day`, seconds: 86_400, limit: w.perDay },
];

export class RateLimiter {
  constructor(
    private readonly counters: CounterStore,
    private readonly config: Config,
  ) {}

  private classWindows(cls: EndpointClass): WindowSpec[] {
    switch (cls) {
      case "solve":
        return windows("solve", this.config.solveRateLimit);
      case "models_execute":
        return windows("execute", this.config.modelsExecuteRateLimit);
      case "models_read":
        return windows("models", this.config.modelsReadRateLimit);
      case "credits_calculator":
        return windows("calculator", this.config.creditsCalculatorRateLimit);
      default:
        return [];
    }
  }

  /** An authenticated request of organization `orgId`: overall + endpoint-class windows. */
  forOrganization(orgId: string, cls: EndpointClass, nowMs: number): Promise<ConsumeResult> {
    return this.counters.consume(`ORG#${orgId}`, [...windows("all", this.config.instanceRateLimit), ...this.classWindows(cls)], nowMs);
  }

  /** A public endpoint with a per-IP limit (the credits calculator). */
  forClientIp(ip: string, cls: EndpointClass, nowMs: number): Promise<ConsumeResult> {
    return this.counters.consume(`IP#${ip}#${cls}`, this.classWindows(cls), nowMs);
  }

  signIn(ip: string, nowMs: number): Promise<ConsumeResult> {
    return this.counters.consume(`IP#${ip}#login`, windows("login", this.config.authLoginRateLimit), nowMs);
  }

  signInForEmail(email: string, nowMs: number): Promise<ConsumeResult> {
    return this.counters.consume(`EMAIL#${email}#login`, windows("login-email", this.config.authLoginPerEmailRateLimit), nowMs);
  }

  signUp(ip: string, nowMs: number): Promise<ConsumeResult> {
    return this.counters.consume(`IP#${ip}#signup`, windows("signup", this.config.authSignupRateLimit), nowMs);
  }

  passwordReset(email: string, nowMs: number): Promise<ConsumeResult> {
    return this.counters.consume(`EMAIL#${email}#reset`, [{ name: "reset-hour", seconds: 3600, limit: this.config.authPasswordResetPerHour }], nowMs);
  }

  triggerFire(triggerId: string, nowMs: number): Promise<ConsumeResult> {
    return this.counters.consume(`TRG#${triggerId}`, [{ name: "fire-minute", seconds: 60, limit: this.config.triggerFireRateLimitPerMinute }], nowMs);
  }
}

/** Throws the 429 for a refused result. */
export function assertAllowed(result: ConsumeResult, nowMs: number, what?: string): void {
  if (result.allowed) return;
  const refused = result.windows.filter((w) => w.limit > 0 && w.remaining <= 0);
  const w = refused.reduce((a, b) => (b.resetAt > a.resetAt ? b : a), refused[0] ?? result.windows[0]!);
  throw new RateLimitError({ limit: w.limit, remaining: 0, resetAt: w.resetAt, retryAfter: Math.max(1, w.resetAt - Math.floor(nowMs / 1000)) }, what);
}

/** Response headers: X-RateLimit-* for the binding window, plus the IETF RateLimit-Policy / RateLimit fields. */
export function rateLimitHeaders(result: ConsumeResult, nowMs: number): Record<string, string> {
  const limited = result.windows.filter((w) => w.limit > 0);
  const binding: WindowState | null = bindingWindow(result.windows);
  if (!binding) return {};
  const nowS = Math.floor(nowMs / 1000);
  return {
    "X-RateLimit-Limit": String(binding.limit),
    "X-RateLimit-Remaining": String(binding.remaining),
    "X-RateLimit-Reset": String(binding.resetAt),
    "RateLimit-Policy": limited.map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(", "),
    RateLimit: `"${binding.name}";r=${binding.remaining};t=${Math.max(0, binding.resetAt - nowS)}`,
  };
}
