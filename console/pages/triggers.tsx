import { useState } from "preact/hooks";
import type { SolverChoice, TriggerCreated, TriggerRun } from "@incumbent/client";
import { type Credential, call, client } from "../api.js";
import { ErrorLine, message, SecretOnce, useLoad, usePoll, when } from "../ui.js";
import { OverrideSchemaEditor, type OverrideRow, overrideSchemaOf } from "./override-editor.js";

const FINAL_RUN = new Set(["completed", "failed", "validation_failed"]);

function RunHistory({ triggerId }: { triggerId: string }) {
  const [runs, setRuns] = useState<TriggerRun[]>([]);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);
  // Polled while open: a fire from outside (curl, a webhook source) shows up without a reload.
  usePoll(
    async () => {
      try {
        const page = await call(
          client.api.GET("/api/v2/triggers/{trigger_id}/runs", { params: { path: { trigger_id: triggerId }, query: { page_size: 20 } } }),
        );
        const full = await Promise.all(
          page.items.map((r) =>
            call(client.api.GET("/api/v2/triggers/{trigger_id}/runs/{run_id}", { params: { path: { trigger_id: triggerId, run_id: r.id } } })),
          ),
        );
        setRuns(full);
        setTotal(page.total);
      } catch (err) {
        setError(message(err));
      }
    },
    2000,
    [triggerId],
  );
  const rerun = async (runId: string) => {
    try {
      await call(client.api.POST("/api/v2/triggers/{trigger_id}/runs/{run_id}/rerun", { params: { path: { trigger_id: triggerId, run_id: runId } } }));
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <section aria-labelledby={`history-${triggerId}`}>
      <h3 id={`history-${triggerId}`}>Fire history ({total} runs)</h3>
      <ErrorLine error={error} />
      <table class="runs" data-trigger={triggerId}>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Source</th>
            <th scope="col">Status</th>
            <th scope="col">Objective</th>
            <th scope="col">Overrides</th>
            <th scope="col">Webhook attempts</th>
            <th scope="col">Created</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} data-run={r.id}>
              <td>
                <code>{r.id}</code>
              </td>
              <td>{r.source}</td>
              <td class="run-status">
                {r.status}
                {r.error ? <span class="hint"> {r.error}</span> : null}
                {r.validation ? <span class="hint"> {r.validation.code}</span> : null}
              </td>
              <td>{r.result_data?.objective_value ?? "—"}</td>
              <td>
                <code>{JSON.stringify(r.override_data)}</code>
              </td>
              <td>
                {r.webhook ? (
                  <>
                    {r.webhook.status}
                    <ol class="attempts">
                      {r.webhook.attempts.map((a) => (
                        <li key={a.attempt}>
                          #{a.attempt} {a.outcome} {a.status_code ?? a.error ?? ""} · {Math.round(a.duration_ms)} ms · {when(a.attempted_at)}
                        </li>
                      ))}
                    </ol>
                  </>
                ) : (
                  "no webhook"
                )}
              </td>
              <td>{when(r.created_at)}</td>
              <td>
                {FINAL_RUN.has(r.status) ? (
                  <button type="button" onClick={() => rerun(r.id)} aria-label={`Rerun ${r.id}`}>
                    Rerun
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function CreateTrigger({ onCreated }: { onCreated: (t: TriggerCreated) => void }) {
  const documents = useLoad(() => call(client.api.GET("/api/v2/documents")), []);
  const [documentId, setDocumentId] = useState("");
  const document = useLoad(
    () => (documentId ? call(client.api.GET("/api/v2/documents/{document_id}", { params: { path: { document_id: documentId } } })) : Promise.resolve(null)),
    [documentId],
  );
  const [overrides, setOverrides] = useState<OverrideRow[]>([]);
  const [error, setError] = useState<string | null>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    try {
      const solver = String(form.get("solver_name") ?? "");
      const webhook = String(form.get("webhook_url") ?? "").trim();
      const created = await call(
        client.api.POST("/api/v2/triggers", {
          body: {
            name: String(form.get("name") ?? ""),
            document_id: documentId,
            version_id: String(form.get("version_id") ?? ""),
            override_schema: overrideSchemaOf(overrides),
            ...(solver ? { solver_name: solver as SolverChoice } : {}),
            ...(webhook ? { webhook_url: webhook } : {}),
          },
        }),
      );
      setError(null);
      onCreated(created);
    } catch (err) {
      setError(message(err));
    }
  };

  const versions = document.value?.versions ?? [];
  return (
    <form onSubmit={create} aria-labelledby="new-trigger">
      <h2 id="new-trigger">New trigger</h2>
      <ErrorLine error={error ?? documents.error} />
      <label for="trigger-name">Name</label>
      <input id="trigger-name" name="name" required maxLength={200} />
      <label for="trigger-document">Builder document</label>
      <select id="trigger-document" required value={documentId} onChange={(e) => setDocumentId((e.currentTarget as HTMLSelectElement).value)}>
        <option value="">Choose a document…</option>
        {(documents.value?.documents ?? []).map((d) => (
          <option key={d.id} value={d.id}>
            {d.name}
          </option>
        ))}
      </select>
      <label for="trigger-version">Pinned version</label>
      <select id="trigger-version" name="version_id" required>
        {versions.map((v) => (
          <option key={v.id} value={v.id}>
            #{v.number} {v.name ?? ""} ({v.solver_name})
          </option>
        ))}
      </select>
      <label for="trigger-solver">Solver</label>
      <select id="trigger-solver" name="solver_name">
        <option value="">The pinned version's</option>
        {["auto", "scip", "highs", "cbc", "glpk", "jaos"].map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <label for="trigger-webhook">Webhook URL (optional)</label>
      <input id="trigger-webhook" name="webhook_url" type="url" />
      <OverrideSchemaEditor rows={overrides} onChange={setOverrides} overridable={document.value?.latest_version?.overridable ?? []} />
      <button type="submit" disabled={!documentId}>
        Create trigger
      </button>
    </form>
  );
}

/** Trigger management takes an API key (the API's rule); a session can still run a trigger now. */
export function TriggersPage({ credential }: { credential: Credential }) {
  const triggers = useLoad(() => (credential.kind === "api_key" ? call(client.api.GET("/api/v2/triggers")) : Promise.resolve(null)), [credential.token]);
  const [created, setCreated] = useState<TriggerCreated | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const act = async (request: () => Promise<unknown>) => {
    try {
      await request();
      setError(null);
      triggers.reload();
    } catch (err) {
      setError(message(err));
    }
  };
  if (credential.kind !== "api_key") {
    return (
      <>
        <h1 tabIndex={-1}>Triggers</h1>
        <p>
          Trigger management takes an API key. <a href="#/keys">Create a key</a>, then sign out and sign in with it.
        </p>
      </>
    );
  }
  const list = triggers.value ?? [];
  return (
    <>
      <h1 tabIndex={-1}>Triggers</h1>
      <ErrorLine error={error ?? triggers.error} />
      <CreateTrigger
        onCreated={(t) => {
          setCreated(t);
          triggers.reload();
        }}
      />
      {created ? (
        <>
          <SecretOnce id="trigger-secret" label={`Secret of trigger "${created.name}" (${created.id})`} value={created.trigger_secret} />
          {created.webhook_secret ? <SecretOnce id="webhook-secret" label="Webhook signing secret" value={created.webhook_secret} /> : null}
        </>
      ) : null}
      <h2>Triggers</h2>
      <table class="triggers">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Secret prefix</th>
            <th scope="col">Enabled</th>
            <th scope="col">Runs</th>
            <th scope="col">Last fired</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {list.map((t) => (
            <tr key={t.id} data-trigger={t.id}>
              <th scope="row">{t.name}</th>
              <td>
                <code>{t.trigger_secret_prefix}…</code>
              </td>
              <td>{t.is_enabled ? "enabled" : "disabled"}</td>
              <td>{t.total_runs}</td>
              <td>{when(t.last_fired_at)}</td>
              <td class="actions">
                <button
                  type="button"
                  onClick={() =>
                    act(() =>
                      call(
                        client.api.POST("/api/v2/triggers/{trigger_id}/toggle", { params: { path: { trigger_id: t.id } }, body: { enabled: !t.is_enabled } }),
                      ),
                    )
                  }
                >
                  {t.is_enabled ? "Disable" : "Enable"} <span class="sr-only">{t.name}</span>
                </button>
                <button
                  type="button"
                  onClick={() => act(() => call(client.api.POST("/api/v2/triggers/{trigger_id}/run", { params: { path: { trigger_id: t.id } } })))}
                  disabled={!t.is_enabled}
                >
                  Run now <span class="sr-only">{t.name}</span>
                </button>
                <button type="button" aria-expanded={open === t.id} onClick={() => setOpen(open === t.id ? null : t.id)}>
                  History <span class="sr-only">of {t.name}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {open ? <RunHistory key={open} triggerId={open} /> : null}
    </>
  );
}
