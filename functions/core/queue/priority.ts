import { z } from "zod";
import { roleAtLeast, type Role } from "../auth/roles.js";
import { forbidden } from "../errors.js";

/**
 * Job priority. SQS has no priority, so each band is its own queue and workers poll the bands in
 * order (docs/decisions.md, "Priority bands"): high (priority > 0), normal (0), low (< 0). Within a
 * band the order is the queue's (roughly first in, first out); the number inside a band only says
 * which band a job goes to.
 */
export const PRIORITY_MIN = -100;
export const PRIORITY_MAX = 100;

export const PrioritySchema = z
  .number()
  .int()
  .min(PRIORITY_MIN)
  .max(PRIORITY_MAX)
  .default(0)
  .describe("ours: -100..100, default 0. Above 0 the job waits in the high band (admins and owners only), below 0 in the low band");

export const PRIORITY_BANDS = ["high", "normal", "low"] as const;
export type PriorityBand = (typeof PRIORITY_BANDS)[number];

export function priorityBand(priority: number | undefined): PriorityBand {
  if (priority === undefined || priority === 0) return "normal";
  return priority > 0 ? "high" : "low";
}

/**
 * Anti-starvation: every ANTI_STARVATION_EVERY-th receive of a worker starts with a lower band,
 * alternating normal and low. So while a lower band has waiting jobs, each worker takes at least one
 * of them in every 2 × ANTI_STARVATION_EVERY jobs it takes, however full the bands above are.
 */
export const ANTI_STARVATION_EVERY = 4;

/** The bands a worker's `receiveNumber`-th receive (1-based) polls, first to last. */
export function bandPollOrder(receiveNumber: number): PriorityBand[] {
  if (receiveNumber % ANTI_STARVATION_EVERY !== 0) return [...PRIORITY_BANDS];
  const first: PriorityBand = (receiveNumber / ANTI_STARVATION_EVERY) % 2 === 1 ? "low" : "normal";
  return [first, ...PRIORITY_BANDS.filter((b) => b !== first)];
}

/**
 * Priority above 0 is for admins and owners: any member could otherwise put every job of theirs ahead
 * of everyone else's, and the high band would be the normal one. Lowering is open to everyone.
 */
export function assertPriorityAllowed(priority: number | undefined, role: Role): void {
  if (priority !== undefined && priority > 0 && !roleAtLeast(role, "admin")) {
    throw forbidden(`Priority above 0 (asked: ${priority}) needs the admin role; use 0 or below.`);
  }
}
