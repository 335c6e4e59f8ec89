import { normalizeEmail } from "../../functions/core/auth/email.js";
import type { Api, ApiResponse } from "./api.js";
import type { Mail } from "./test-stack.js";

/**
 * Accounts the way a user makes them (issue 25): sign-up and invitation answer 202 and mail a token;
 * the account is made when the token comes back. These helpers read the token from the test stack's
 * captured mail.
 */
const TOKEN = /inc_(sgn|inv)_\w+/;

/** The token of the newest mail to `to` that carries one (addresses compared as the service compares them). */
export function mailedToken(mail: Mail[], to: string, kind: "sgn" | "inv"): string {
  for (let i = mail.length - 1; i >= 0; i--) {
    const m = mail[i]!;
    const token = TOKEN.exec(m.body)?.[0];
    if (m.to === normalizeEmail(to) && token?.startsWith(`inc_${kind}_`)) return token;
  }
  throw new Error(`no ${kind} token was mailed to ${to}; mail: ${JSON.stringify(mail.slice(-3))}`);
}

/** Signs up and confirms; returns the confirmation's answer (201 with the owner). */
export async function signUp(anon: Api, mail: Mail[], body: { organization_name: string; email: string; password: string }): Promise<ApiResponse> {
  const asked = await anon.post("/api/v2/auth/signup", body);
  if (asked.status !== 202) throw new Error(`sign-up answered ${asked.status}: ${asked.text}`);
  return anon.post("/api/v2/auth/signup/confirm", { token: mailedToken(mail, body.email, "sgn") });
}

/** Invites as `admin` and accepts with `password`; returns the acceptance's answer (201 with the user). */
export async function invite(admin: Api, mail: Mail[], body: { email: string; role: string; password: string; name?: string }): Promise<ApiResponse> {
  const asked = await admin.post("/api/v2/users", { email: body.email, role: body.role, ...(body.name ? { name: body.name } : {}) });
  if (asked.status !== 202) throw new Error(`invitation answered ${asked.status}: ${asked.text}`);
  return admin.as(null).post("/api/v2/auth/invitations/accept", { token: mailedToken(mail, body.email, "inv"), password: body.password });
}
