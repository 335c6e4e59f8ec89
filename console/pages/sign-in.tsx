import { useState } from "preact/hooks";
import { call, clientWith, type Credential } from "../api.js";
import { ErrorLine, message } from "../ui.js";

/** Two ways in, both the API's own: e-mail and password (a session), or an API key pasted in. */
export function SignInPage({ onSignedIn }: { onSignedIn: (c: Credential) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const withPassword = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    try {
      const session = await call(
        clientWith("").api.POST("/api/v2/auth/login", { body: { email: String(form.get("email") ?? ""), password: String(form.get("password") ?? "") } }),
      );
      const me = await call(clientWith(session.access_token).api.GET("/api/v2/auth/me"));
      onSignedIn({ kind: "session", token: session.access_token, label: me.email });
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };

  const withKey = async (e: Event) => {
    e.preventDefault();
    const token = String(new FormData(e.currentTarget as HTMLFormElement).get("api_key") ?? "").trim();
    setBusy(true);
    try {
      const me = await call(clientWith(token).api.GET("/api/v2/auth/me"));
      onSignedIn({ kind: "api_key", token, label: me.email });
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>Sign in</h1>
      <ErrorLine error={error} />
      <div class="columns">
        <form onSubmit={withPassword} aria-labelledby="with-password">
          <h2 id="with-password">With e-mail and password</h2>
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="username" required />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
        <form onSubmit={withKey} aria-labelledby="with-key">
          <h2 id="with-key">With an API key</h2>
          <label for="api-key">API key</label>
          <input id="api-key" name="api_key" type="password" autocomplete="off" required />
          <p class="hint">Kept in this tab only (sessionStorage); trigger management needs an API key.</p>
          <button type="submit" disabled={busy}>
            Use this key
          </button>
        </form>
      </div>
      <p>
        <a href="#/health">Service health</a> needs no sign-in.
      </p>
    </>
  );
}
