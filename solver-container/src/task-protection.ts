/**
 * ECS task scale-in protection: while a worker holds a job, its task must not be the one the service
 * stops when the fleet scales in. The ECS agent in every task serves
 * `PUT ${ECS_AGENT_URI}/task-protection/v1/state` with `{ ProtectionEnabled, ExpiresInMinutes }`.
 * Outside ECS (no agent URI) protection is a no-op. The agent makes the ECS call (UpdateTaskProtection)
 * with the task role's credentials: the task role holds that right (lib/solver-fleet.ts).
 *
 * The expiry bounds what a hung worker could hold: a job that runs longer renews it, and a
 * worker that dies takes its task with it, protection and all.
 */
export interface TaskProtectionOptions {
  agentUri: string;
  expiresInMinutes: number;
  onError?: (error: unknown) => void;
  fetch?: typeof fetch;
  /** How long one call may take (default 5 s: the agent is local; a slower answer is retried on the next heartbeat). */
  timeoutMs?: number;
}

export class TaskProtection {
  private protectedUntil = 0;
  private wanted = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: TaskProtectionOptions) {}

  get enabled(): boolean {
    return this.options.agentUri !== "";
  }

  /** Protects the task (or renews the protection once half of it has run out). */
  protect(): Promise<void> {
    this.wanted = true;
    const halfLeft = this.protectedUntil - Date.now() > (this.options.expiresInMinutes * 60_000) / 2;
    if (!this.enabled || halfLeft) return this.queue;
    return this.put({ protect: true });
  }

  /** Lifts the protection: the task is idle and may be scaled in. */
  release(): Promise<void> {
    if (!this.enabled || !this.wanted) return this.queue;
    this.wanted = false;
    return this.put({ protect: false });
  }

  /** Calls run one after another, so a release never overtakes the protect before it. */
  private put({ protect }: { protect: boolean }): Promise<void> {
    const body = protect ? { ProtectionEnabled: true, ExpiresInMinutes: this.options.expiresInMinutes } : { ProtectionEnabled: false };
    this.queue = this.queue.then(async () => {
      try {
        const res = await (this.options.fetch ?? fetch)(`${this.options.agentUri}/task-protection/v1/state`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
        });
        const text = await res.text();
        // Only `protection` in the answer means ECS recorded it; the agent reports a refused task as
        // `failure` and a refused or failed ECS call (the task role lacks ecs:UpdateTaskProtection, a
        // throttle, a timeout) as `error`, whatever the status.
        if (!res.ok || !hasProtection(text)) throw new Error(`ECS agent answered ${res.status}: ${text.slice(0, 300)}`);
        this.protectedUntil = protect ? Date.now() + this.options.expiresInMinutes * 60_000 : 0;
      } catch (error) {
        this.protectedUntil = 0; // try again on the next renewal
        this.options.onError?.(error);
      }
    });
    return this.queue;
  }
}

function hasProtection(text: string): boolean {
  try {
    const body = JSON.parse(text) as { protection?: unknown; failure?: unknown; error?: unknown };
    return typeof body.protection === "object" && body.protection !== null && !body.failure && !body.error;
  } catch {
    return false;
  }
}
