import type { TestProject } from "vitest/node";
import { startNpmStart, stopProcessGroup, type Target } from "./target.js";

declare module "vitest" {
  export interface ProvidedContext {
    target: Target;
  }
}

/** Starts the service for the black-box suite unless BASE_URL and API_KEY name one already. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.BASE_URL && process.env.API_KEY) {
    project.provide("target", { baseUrl: process.env.BASE_URL.replace(/\/+$/, ""), apiKey: process.env.API_KEY, started: null });
    return async () => undefined;
  }
  const s = await startNpmStart({ INSTANCE_RATE_LIMIT_PER_MINUTE: "600" });
  project.provide("target", { baseUrl: s.url, apiKey: s.key, started: { pid: s.child.pid!, msToHealthy: s.msToHealthy, printedKey: s.key } });
  return () => stopProcessGroup(s.child);
}
