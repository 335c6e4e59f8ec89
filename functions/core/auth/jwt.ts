import { createHmac } from "node:crypto";
import { constantTimeEqual } from "./secrets.js";

/** HS256 JSON Web Tokens for sessions (RFC 7519), with node:crypto only. */
export interface SessionClaims {
  sub: string; // user id
  org: string;
  role: string;
  /** The user's token version when the session began; a later version ends it. */
  ver?: number;
  iat: number;
  exp: number;
  typ: "session";
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");
const HEADER = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));

export function signJwt(claims: SessionClaims, secret: string): string {
  const body = `${HEADER}.${b64url(JSON.stringify(claims))}`;
  const signature = createHmac("sha256", secret).update(body).digest("base64url");
  return `${body}.${signature}`;
}

/** The claims of a valid, unexpired token, or null. `nowSeconds` comes from the injected clock. */
export function verifyJwt(token: string, secret: string, nowSeconds: number): SessionClaims | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [header, payload, signature] = parts as [string, string, string];
  if (header !== HEADER) return null;
  const expected = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
  if (!constantTimeEqual(signature, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as SessionClaims;
    if (claims.typ !== "session" || typeof claims.exp !== "number" || claims.exp <= nowSeconds) return null;
    return claims;
  } catch {
    return null;
  }
}

export const looksLikeJwt = (token: string): boolean => token.split(".").length === 3 && token.startsWith("eyJ");
