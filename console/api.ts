/**
 * The console's only way to the service: same-origin fetches to /api/v2 with the credential the user
 * gave (a session token from POST /auth/login, or a pasted API key) as a bearer header. The credential
 * lives in sessionStorage, so it ends with the tab; nothing is stored in cookies and the page carries
 * no secret of its own.
 */
import { IncumbentClient, unwrap } from "@incumbent/client";

const STORE_KEY = "incumbent.credential";

export interface Credential {
  kind: "session" | "api_key";
  token: string;
  /** who signed in, for the header */
  label: string;
}

export function loadCredential(): Credential | null {
  try {
    const raw = sessionStorage.getItem(STORE_KEY);
    return raw ? (JSON.parse(raw) as Credential) : null;
  } catch {
    return null;
  }
}

export function saveCredential(credential: Credential | null): void {
  if (credential) sessionStorage.setItem(STORE_KEY, JSON.stringify(credential));
  else sessionStorage.removeItem(STORE_KEY);
}

export { IncumbentError as ApiError } from "@incumbent/client";

let current: Credential | null = loadCredential();
export const setCurrentCredential = (credential: Credential | null) => {
  current = credential;
  saveCredential(credential);
};
export const currentCredential = () => current;

/** Fired when the signed-in credential stops working (a session expired, a key was revoked). */
export const CREDENTIAL_REFUSED = "incumbent:credential-refused";

/**
 * The typed client (clients/typescript): every path, body and response is the OpenAPI document's, so a
 * changed response schema fails `tsc -p console` where a page reads it. Same origin; the credential is
 * read on each request.
 */
export const client = new IncumbentClient({
  baseUrl: location.origin,
  credential: () => current?.token,
  onUnauthorized: () => dispatchEvent(new Event(CREDENTIAL_REFUSED)),
});

/** A client for one other credential (sign-in checks a token before it becomes the current one). */
export const clientWith = (token: string) => new IncumbentClient({ baseUrl: location.origin, credential: token });

/** `await call(client.api.GET("/api/v2/keys"))`: the typed data, or an ApiError with the service's detail. */
export const call = unwrap;
