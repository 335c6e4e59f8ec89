import "uplot/dist/uPlot.min.css";
import "./style.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { CREDENTIAL_REFUSED, type Credential, currentCredential, setCurrentCredential } from "./api.js";
import { ComparePage } from "./pages/compare.js";
import { ExecutionsPage, executionIdOf } from "./pages/execution.js";
import { HealthPage } from "./pages/health.js";
import { KeysPage } from "./pages/keys.js";
import { MatricesPage } from "./pages/matrices.js";
import { NotificationsPage, UnreadBadge } from "./pages/notifications.js";
import { SignInPage } from "./pages/sign-in.js";
import { TriggersPage } from "./pages/triggers.js";

/** Pages by hash route (#/compare): the server serves one document at /console whatever the page. */
const PAGES = [
  { path: "compare", title: "Solve & compare" },
  { path: "matrices", title: "Matrices" },
  { path: "executions", title: "Execution" },
  { path: "triggers", title: "Triggers" },
  { path: "keys", title: "API keys" },
  { path: "notifications", title: "Notifications" },
  { path: "health", title: "Health" },
] as const;
type PagePath = (typeof PAGES)[number]["path"];

const routeOf = (): string => location.hash.replace(/^#\/?/, "").split("/")[0] || "compare";

function App() {
  const [credential, setCredential] = useState<Credential | null>(currentCredential());
  const [route, setRoute] = useState(routeOf());
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onHash = () => {
      setRoute(routeOf());
      setHash(location.hash);
    };
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  useEffect(() => {
    const page = PAGES.find((p) => p.path === route);
    document.title = `${credential ? (page?.title ?? "Console") : "Sign in"} · Incumbent console`;
    // Focus moves to the new page's heading so keyboard and screen-reader users land on it.
    document.querySelector<HTMLElement>("main h1")?.focus();
  }, [route, hash, credential]);

  const signIn = (c: Credential) => {
    setCurrentCredential(c);
    setCredential(c);
  };
  const signOut = () => {
    setCurrentCredential(null);
    setCredential(null);
    location.hash = "#/";
  };
  // A credential the API no longer takes sends the user back to sign in.
  useEffect(() => {
    addEventListener(CREDENTIAL_REFUSED, signOut);
    return () => removeEventListener(CREDENTIAL_REFUSED, signOut);
  }, []);

  const page = credential || route === "health" ? (route as PagePath) : "sign-in";
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <p class="brand">Incumbent console</p>
        {credential ? (
          <nav aria-label="Pages">
            <ul>
              {PAGES.map((p) => (
                <li key={p.path}>
                  <a href={`#/${p.path}`} aria-current={route === p.path ? "page" : undefined}>
                    {p.title}
                    {p.path === "notifications" ? <UnreadBadge route={route} /> : null}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        {credential ? (
          <p class="who">
            Signed in as <strong>{credential.label}</strong> ({credential.kind === "session" ? "session" : "API key"}){" "}
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </p>
        ) : null}
      </header>
      <main id="main">
        {page === "sign-in" ? <SignInPage onSignedIn={signIn} /> : null}
        {page === "compare" ? <ComparePage /> : null}
        {page === "matrices" ? <MatricesPage /> : null}
        {page === "executions" ? <ExecutionsPage id={executionIdOf(hash)} /> : null}
        {page === "triggers" ? <TriggersPage credential={credential!} /> : null}
        {page === "keys" ? <KeysPage /> : null}
        {page === "notifications" ? <NotificationsPage /> : null}
        {page === "health" ? <HealthPage /> : null}
        {!PAGES.some((p) => p.path === page) && page !== "sign-in" ? <h1 tabIndex={-1}>No such page</h1> : null}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
