import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The keys every log line of a unit of work carries — the Lambda invocation's `function_request_id`,
 * the API's `request_id` and `org_id`, a worker's `job_id` and `org_id`, a webhook attempt's ids —
 * kept for the async work that unit starts, whichever logger (a service's, a store's, the request's)
 * writes the line. functions/core/logger.ts adds them to every line.
 */
type LogKeys = Record<string, string | number | undefined>;

const storage = new AsyncLocalStorage<LogKeys>();

/** Runs `fn` with `keys` added to the current context (a copy: the caller's context is unchanged). */
export function withLogContext<T>(keys: LogKeys, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...keys }, fn);
}

/** Adds keys to the current unit of work (e.g. the organization once a request is authenticated). */
export function addLogContext(keys: LogKeys): void {
  const store = storage.getStore();
  if (store) Object.assign(store, keys);
}

/** The current unit of work's keys, without the empty ones. */
export function currentLogContext(): Record<string, string | number> {
  const store = storage.getStore();
  if (!store) return {};
  return Object.fromEntries(Object.entries(store).filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== ""));
}
