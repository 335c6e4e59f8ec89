import { z } from "zod";
import { clampTimeLimit, type Config } from "../config.js";
import type { SolveSettings } from "./types.js";

/** The longest a solve may run whatever is asked: one day (job leases, the sweeper and queue visibility are sized below it). */
export const MAX_TIME_LIMIT_SECONDS = 86_400;

/** Settings a request may give. `threads` is not among them: the platform sets it, and reports it. */
export const SettingsRequestSchema = z
  .object({
    time_limit_seconds: z
      .number()
      .positive()
      .optional()
      .describe(`default 60; clamped, never refused: to the instance ceiling (INSTANCE_MAX_SOLVE_TIME_SECONDS) and to ${MAX_TIME_LIMIT_SECONDS} s`),
    gap_tolerance: z.number().min(0).max(1).optional().describe("relative MIP gap; default 0.0001"),
  })
  .strict();
export type SettingsRequest = z.infer<typeof SettingsRequestSchema>;

export const SettingsSchema = z.object({
  time_limit_seconds: z.number(),
  gap_tolerance: z.number(),
  threads: z.number().int(),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** Defaults, then the ceilings (clamped, never refused, as the spec says), then the platform's thread count. */
export function resolveSettings(
  config: Pick<Config, "instanceMaxSolveTimeSeconds" | "defaultTimeLimitSeconds" | "defaultGapTolerance" | "solverThreads">,
  requested: SettingsRequest | undefined,
): Settings {
  return {
    time_limit_seconds: Math.min(MAX_TIME_LIMIT_SECONDS, clampTimeLimit(config, requested?.time_limit_seconds ?? config.defaultTimeLimitSeconds)),
    gap_tolerance: requested?.gap_tolerance ?? config.defaultGapTolerance,
    threads: config.solverThreads,
  };
}

export const toSolveSettings = (s: Settings): SolveSettings => ({
  timeLimitSeconds: s.time_limit_seconds,
  gapTolerance: s.gap_tolerance,
  threads: s.threads,
});
