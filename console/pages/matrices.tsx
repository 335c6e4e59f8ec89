import { useState } from "preact/hooks";
import type { MatrixDetail } from "@incumbent/client";
import { call, client } from "../api.js";
import { ErrorLine, fmt, message, useLoad, usePoll, when } from "../ui.js";
import { ComparisonView } from "./comparison-view.js";
import { SettingsFields, SolverPicker, settingsFrom } from "./solver-picker.js";

const FINAL = new Set(["completed", "failed", "cancelled"]);

/** Light (fast) to dark (slow) within one matrix: times are comparable only inside it. */
function shade(ms: number | null, max: number): string | undefined {
  if (ms === null || max <= 0) return undefined;
  // 95% to 65% lightness keeps the dark text above 4.5:1 contrast on every shade.
  const level = Math.round(95 - 30 * (ms / max));
  return `hsl(210 60% ${level}%)`;
}

function MatrixGrid({ batchId, onSettled }: { batchId: string; onSettled: () => void }) {
  const [batch, setBatch] = useState<MatrixDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [opened, setOpened] = useState<string | null>(null);
  usePoll(
    async () => {
      try {
        const b = await call(client.api.GET("/api/v2/solvers/compare/batches/{batch_id}", { params: { path: { batch_id: batchId } } }));
        setBatch(b);
        if (FINAL.has(b.status)) onSettled();
        return !FINAL.has(b.status);
      } catch (err) {
        setError(message(err));
        return false;
      }
    },
    1500,
    [batchId],
  );
  if (!batch) return <ErrorLine error={error} />;
  const times = batch.rows.flatMap((r) => r.results.map((c) => c.wall_time_ms ?? 0));
  const max = Math.max(0, ...times);
  const cancel = async () => {
    try {
      setBatch(await call(client.api.POST("/api/v2/solvers/compare/batches/{batch_id}/cancel", { params: { path: { batch_id: batchId } } })));
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <section aria-labelledby="matrix-title">
      <h2 id="matrix-title">
        {batch.project_name} <span class="hint">({batch.status})</span>
      </h2>
      <ErrorLine error={error} />
      {FINAL.has(batch.status) ? null : (
        <button type="button" onClick={cancel}>
          Cancel matrix
        </button>
      )}
      <p class="hint">Each cell: the verdict and the wall time in ms, darker where slower (within this matrix only). A cell opens its row.</p>
      <table class="matrix" data-batch={batch.batch_id}>
        <caption class="sr-only">Datasets × solvers</caption>
        <thead>
          <tr>
            <th scope="col">Dataset</th>
            {batch.solver_names.map((s: string) => (
              <th scope="col" key={s}>
                {s}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {batch.rows.map((row) => (
            <tr key={row.comparison_id}>
              <th scope="row">
                {row.dataset_name}
                {row.error_message ? <span class="hint"> {row.error_message}</span> : null}
              </th>
              {row.results.map((cell) => (
                <td key={cell.solver_name} class="cell" style={{ background: shade(cell.wall_time_ms, max) }}>
                  <button type="button" class="cell-button" onClick={() => setOpened(row.comparison_id)}>
                    <span class="sr-only">
                      Open {row.dataset_name} on {cell.solver_name}:{" "}
                    </span>
                    <span class="verdict">{cell.solver_status ?? cell.status}</span>
                    <span class="ms">{cell.wall_time_ms === null ? "" : `${fmt(cell.wall_time_ms, 4)} ms`}</span>
                  </button>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {opened ? <ComparisonView key={opened} id={opened} headingLevel={3} /> : null}
    </section>
  );
}

/** A project's datasets × solvers: launch a matrix, list them, open one as a grid. */
export function MatricesPage() {
  const projects = useLoad(() => call(client.api.GET("/api/v2/projects")), []);
  const marketplace = useLoad(() => call(client.api.GET("/api/v2/marketplace")), []);
  const [projectId, setProjectId] = useState<string>("");
  const datasets = useLoad(
    () => (projectId ? call(client.api.GET("/api/v2/projects/{project_id}/datasets", { params: { path: { project_id: projectId } } })) : Promise.resolve(null)),
    [projectId],
  );
  const batches = useLoad(
    () => call(client.api.GET("/api/v2/solvers/compare/batches", { params: { query: { limit: 20, ...(projectId ? { project_id: projectId } : {}) } } })),
    [projectId],
  );
  const [solvers, setSolvers] = useState<string[]>([]);
  const [batchId, setBatchId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const fromMarketplace = async (e: Event) => {
    e.preventDefault();
    const model = String(new FormData(e.currentTarget as HTMLFormElement).get("model_id"));
    try {
      const created = await call(client.api.POST("/api/v2/projects/from-marketplace/{model_id}", { params: { path: { model_id: model } }, body: {} }));
      projects.reload();
      setProjectId(created.project.id);
    } catch (err) {
      setError(message(err));
    }
  };

  const launch = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    try {
      const batch = await call(
        client.api.POST("/api/v2/solvers/compare/batches", {
          body: { project_id: projectId, dataset_ids: form.getAll("dataset_id").map(String), solver_names: solvers, settings: settingsFrom(form) },
        }),
      );
      setBatchId(batch.batch_id);
      batches.reload();
    } catch (err) {
      setError(message(err));
    }
  };

  const dataList = datasets.value?.datasets ?? [];
  return (
    <>
      <h1 tabIndex={-1}>Matrices</h1>
      <ErrorLine error={error ?? projects.error} />
      <div class="columns">
        <form onSubmit={fromMarketplace} aria-labelledby="from-market">
          <h2 id="from-market">New project from the marketplace</h2>
          <label for="matrix-model">Model</label>
          <select id="matrix-model" name="model_id">
            {(marketplace.value?.models ?? []).map((m) => (
              <option key={m.id} value={m.id}>
                {m.title} ({m.datasets.length} datasets)
              </option>
            ))}
          </select>
          <button type="submit">Create project</button>
        </form>
        <div>
          <h2>Project</h2>
          <label for="matrix-project">Project</label>
          <select id="matrix-project" value={projectId} onChange={(e) => setProjectId((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">Choose a project…</option>
            {(projects.value?.projects ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      {projectId ? (
        <form onSubmit={launch} aria-label="Launch a matrix">
          <fieldset>
            <legend>Datasets (up to 12, one row each)</legend>
            {dataList.map((d) => (
              <label key={d.id} class="check">
                <input type="checkbox" name="dataset_id" value={d.id} defaultChecked /> {d.name}
              </label>
            ))}
          </fieldset>
          <SolverPicker chosen={solvers} onChange={setSolvers} legend="Solvers (up to 8, one column each)" />
          <SettingsFields prefix="matrix" />
          <button type="submit" disabled={solvers.length === 0 || dataList.length === 0}>
            Run matrix
          </button>
        </form>
      ) : null}
      {batchId ? <MatrixGrid key={batchId} batchId={batchId} onSettled={batches.reload} /> : null}
      <h2>Matrices</h2>
      <ul class="recent">
        {(batches.value?.batches ?? []).map((b) => (
          <li key={b.batch_id}>
            <button type="button" class="link" onClick={() => setBatchId(b.batch_id)}>
              {b.project_name}: {b.dataset_count} datasets × {b.solver_names.join(", ")}
            </button>{" "}
            <span class="hint">
              {b.status} · {when(b.created_at)}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}
