import type { Config, RateWindow } from "../config.js";
import { RateLimitError } from "../errors.js";
import { bindingWindow, type ConsumeResult, type CounterStore, type WindowSpec, type WindowState } from "./counters.js";
import { keys } from "../store/keys.js";

/**
 * The spec's rate limits, by class. A route names its class in its declaration; the class says what
 * the request is counted per and against which windows.
 *
 * Statement A: every request per organization (120/min, 50,000/day); sign-in and sign-up per client
 * IP; password reset per e-mail address (3/hour). Statement B: per endpoint class per organization
 * (solve and execute 60/min, 10,000/day; model reads and the calculator 120/min). An organization's
 * request counts against its overall windows AND its class's windows, all attributes of one item:
 * one UpdateItem per request.
 */
export const RATE_CLASSES = {
  /** Health: never limited, no headers (monitors must never be throttled). */
  exempt: { scope: "none", what: "requests" },
  /** Statement A's "every API request", per organization. */
  organization: { scope: "organization", what: "requests" },
  solve: { scope: "organization", what: "requests" },
  models_execute: { scope: "organization", what: "requests" },
  models_read: { scope: "organization", what: "requests" },
  /** The public credit calculator, per client IP with statement B's numbers. */
  calculator: { scope: "client_ip", what: "requests" },
  /** Per client IP here, then per e-mail address once the body is read. */
  sign_in: { scope: "client_ip", what: "sign-in attempts" },
  sign_up: { scope: "client_ip", what: "sign-ups" },
  password_reset: { scope: "email", what: "password-reset requests for this address" },
  /** What no organization can be charged for (no or a bad credential, unknown routes, public pages): per client IP. */
  anonymous: { scope: "client_ip", what: "requests" },
  /** Fire, run now and rerun share one window per trigger, counted by the run service. */
  trigger: { scope: "trigger", what: "runs of this trigger" },
} as const;

export type RateClass = keyof typeof RATE_CLASSES;
export type RateScope = (typeof RATE_CLASSES)[RateClass]["scope"];
export const RATE_CLASS_NAMES = Object.keys(RATE_CLASSES) as RateClass[];

const windows = (name: string, w: RateWindow): WindowSpec[] => [
  { name: `${name}-minute`, seconds: 60, limit: w.perMinute },
  { name: `${name}-day`, seconds: 86_400, limit: w.perDay },
];

export class RateLimiter {
  constructor(
    private readonly counters: Pick<CounterStore, "consume">,
    private readonly config: Pick<
      Config,
      | "instanceRateLimit"
      | "solveRateLimit"
      | "modelsExecuteRateLimit"
      | "modelsReadRateLimit"
      | "creditsCalculatorRateLimit"
      | "authLoginRateLimit"
      | "authLoginPerEmailRateLimit"
      | "authSignupRateLimit"
      | "authPasswordResetPerHour"
      | "triggerFireRateLimitPerMinute"
    >,
  ) {}

  private classWindows(cls: RateClass): WindowSpec[] {
    const c = this.config;
    switch (cls) {
      case "solve":
        return windows("solve", c.solveRateLimit);
      case "models_execute":
        return windows("execute", c.modelsExecuteRateLimit);
      case "models_read":
        return windows("models", c.modelsReadRateLimit);
      case "calculator":
        return windows("calculator", c.creditsCalculatorRateLimit);
      case "sign_in":
        return windows("login", c.authLoginRateLimit);
      case "sign_up":
        return windows("signup", c.authSignupRateLimit);
      case "password_reset":
        return [{ name: "reset-hour", seconds: 3600, limit: c.authPasswordResetPerHour }];
      case "anonymous":
        return windows("anonymous", c.instanceRateLimit);
      case "trigger":
        return [{ name: "fire-minute", seconds: 60, limit: c.triggerFireRateLimitPerMinute }];
      default:
        return [];
    }
  }

  /**
   * Counts one request of class `cls` (or `amount`, all or none: the calls of a JSON-RPC batch) against
   * the subject its scope names (an organization id, a client IP, an e-mail address or a trigger id).
   * Exempt classes count nothing (null).
   */
  consume(cls: RateClass, { subject, nowMs, amount = 1 }: { subject: string; nowMs: number; amount?: number }): Promise<ConsumeResult> | null {
    switch (RATE_CLASSES[cls].scope) {
      case "none":
        return null;
      case "organization":
        return this.counters.consume(keys.limit.scope.org(subject), {
          windows: [...windows("all", this.config.instanceRateLimit), ...this.classWindows(cls)],
          nowMs,
          amount,
        });
      case "client_ip":
        return this.counters.consume(keys.limit.scope.clientIp(subject, cls), { windows: this.classWindows(cls), nowMs, amount });
      case "email":
        return this.counters.consume(keys.limit.scope.email(subject, cls), { windows: this.classWindows(cls), nowMs, amount });
      case "trigger":
        return this.counters.consume(keys.limit.scope.trigger(subject), { windows: this.classWindows(cls), nowMs, amount });
    }
  }

  /**
   * Sign-in's second window: per account AND client IP (statement B's login numbers). Per account alone,
   * a stranger's ten wrong passwords locked the real user out for the minute (and a thousand for the
   * day); per pair, guessing one account from one address is bounded and its owner signs in from theirs.
   */
  signInForAccountFrom(email: string, clientIp: string, nowMs: number): Promise<ConsumeResult> {
    return this.counters.consume(keys.limit.scope.signInFrom(email, clientIp), {
      windows: windows("login-email", this.config.authLoginPerEmailRateLimit),
      nowMs,
    });
  }
}

/** What a refused window is called in the 429's message. */
export const rateClassWhat = (cls: RateClass): string => RATE_CLASSES[cls].what;

/** Throws the 429 for a refused result. */
/** `what` names the refused window in the message; `amount` is what the request needed of it (a batch more than one). */
export function assertAllowed(result: ConsumeResult, { nowMs, what, amount = 1 }: { nowMs: number; what?: string; amount?: number }): void {
  if (result.allowed) return;
  // The windows without room for `amount` (more than one: a batch refused whole, whose windows may have some left).
  const refused = result.windows.filter((w) => w.limit > 0 && w.remaining < amount);
  const w = refused.reduce((a, b) => (b.resetAt > a.resetAt ? b : a), refused[0] ?? result.windows[0]!);
  const remaining = Math.max(0, Number.isFinite(w.remaining) ? w.remaining : 0);
  throw new RateLimitError(
    { limit: w.limit, remaining, resetAt: w.resetAt, retryAfter: Math.max(1, w.resetAt - Math.floor(nowMs / 1000)) },
    amount > 1 ? `${what ?? "requests"}; this needs ${amount} and ${remaining} remain` : what,
  );
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
