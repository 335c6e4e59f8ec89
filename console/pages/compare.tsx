import { useState } from "preact/hooks";
import type { CompareRequest, ProblemPreview, SolveRequest, SolverChoice } from "@incumbent/client";
import { call, client } from "../api.js";
import { NumericsPanel } from "./numerics.js";
import { ErrorLine, message, useLoad, when } from "../ui.js";
import { ComparisonView } from "./comparison-view.js";
import { ExecutionView } from "./execution.js";
import { RecommendationPanel } from "./recommendation.js";
import { choiceReady, SolverChoiceFields } from "./solve-choice.js";
import { SettingsFields, SolverPicker, settingsFrom } from "./solver-picker.js";

/**
 * Launch a comparison, or one solve (a named solver, auto or a race), from a problem file or a
 * marketplace model, then watch it fill in. A file's recommendation shows before anything runs.
 */
export function ComparePage() {
  const [source, setSource] = useState<"file" | "marketplace">("file");
  const [content, setContent] = useState("");
  const [filename, setFilename] = useState<string | undefined>(undefined);
  /** The uploaded file while the problem is still its own (editing the text drops it). */
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<ProblemPreview | null>(null);
  const [solvers, setSolvers] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [comparisonId, setComparisonId] = useState<string | null>(null);
  const [mode, setMode] = useState<"compare" | "solve">("compare");
  const [solver, setSolver] = useState<SolverChoice>("auto");
  const [entrants, setEntrants] = useState<string[]>([]);
  const [executionId, setExecutionId] = useState<string | null>(null);
  const marketplace = useLoad(() => call(client.api.GET("/api/v2/marketplace")), []);
  const recent = useLoad(() => call(client.api.GET("/api/v2/solvers/compare", { params: { query: { limit: 10 } } })), [comparisonId]);

  const readPreview = async (text: string, name: string | undefined) => {
    setPreview(null);
    if (!text.trim()) return;
    try {
      setPreview(await client.previewFile({ content: text, format: "auto", ...(name ? { filename: name } : {}) }));
      setError(null);
    } catch (err) {
      setError(message(err));
    }
  };

  /** The file goes up as it is (the service reads gzip); plain text is also shown for editing. */
  const upload = async (e: Event) => {
    const chosen = (e.currentTarget as HTMLInputElement).files?.[0];
    if (!chosen) return;
    setPreview(null);
    setFile(chosen);
    setFilename(chosen.name);
    setContent((await isGzip(chosen)) ? "" : await chosen.text());
    try {
      setPreview(await client.previewFile({ content: chosen, filename: chosen.name }));
      setError(null);
    } catch (err) {
      setError(message(err));
    }
  };

  const launch = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      if (mode === "solve") {
        const parsed = preview ?? (await client.previewFile({ content, format: "auto", ...(filename ? { filename } : {}) }));
        setPreview(parsed);
        const request: SolveRequest = { problem: parsed.problem, solver_name: solver, settings: settingsFrom(form) };
        if (solver === "race" && entrants.length > 0) request.race = { solvers: entrants as NonNullable<SolveRequest["race"]>["solvers"] };
        setComparisonId(null);
        setExecutionId((await client.submit(request)).execution_id);
        return;
      }
      const body: CompareRequest = { solver_names: solvers, settings: settingsFrom(form) };
      if (source === "file") {
        const parsed = preview ?? (await client.previewFile({ content, format: "auto", ...(filename ? { filename } : {}) }));
        setPreview(parsed);
        body.problem = parsed.problem;
        if (filename) body.uploaded_filename = filename;
      } else {
        const model = String(form.get("model_id"));
        const created = await call(client.api.POST("/api/v2/projects/from-marketplace/{model_id}", { params: { path: { model_id: model } }, body: {} }));
        body.project_id = created.project.id;
      }
      const comparison = await client.compare(body);
      setExecutionId(null);
      setComparisonId(comparison.id);
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>Solve &amp; compare</h1>
      <form onSubmit={launch} class="launch" aria-label="Launch a solve or a comparison">
        <fieldset>
          <legend>Problem</legend>
          <label class="check">
            <input type="radio" name="source" value="file" checked={source === "file"} onChange={() => setSource("file")} /> An MPS or LP file (plain or .gz)
          </label>
          <label class="check">
            <input type="radio" name="source" value="marketplace" checked={source === "marketplace"} onChange={() => setSource("marketplace")} /> A marketplace
            model
          </label>
          {source === "file" ? (
            <div>
              <label for="problem-file">Upload a file</label>
              <input id="problem-file" type="file" accept=".mps,.lp,.txt,.gz" onChange={upload} />
              <label for="problem-text">Or paste it</label>
              <textarea
                id="problem-text"
                rows={8}
                cols={70}
                value={content}
                onInput={(e) => {
                  setContent((e.currentTarget as HTMLTextAreaElement).value);
                  setFilename(undefined);
                  setFile(null);
                  setPreview(null);
                }}
                onBlur={() => !preview && readPreview(content, filename)}
              />
              {preview ? (
                <p class="preview" role="status" data-testid="preview">
                  {preview.filename ?? "pasted"} · {preview.format.toUpperCase()}
                  {preview.compression ? ` (${preview.compression})` : ""} · <strong>{preview.stats.problem_class}</strong> · {preview.stats.variable_count}{" "}
                  variables ({preview.stats.integer_count} integer, {preview.stats.binary_count} binary) · {preview.stats.constraint_count} constraints ·{" "}
                  {preview.stats.nonzero_count} nonzeros
                </p>
              ) : null}
              {preview ? <NumericsPanel numerics={preview.numerics} id="preview" /> : null}
            </div>
          ) : (
            <div>
              <label for="model-id">Model</label>
              <select id="model-id" name="model_id">
                {(marketplace.value?.models ?? []).map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.title}
                  </option>
                ))}
              </select>
              <p class="hint">A new project is made from the model (its default data) and compared as its draft.</p>
            </div>
          )}
        </fieldset>
        <fieldset class="mode">
          <legend>Run</legend>
          <label class="check">
            <input type="radio" name="mode" value="compare" checked={mode === "compare"} onChange={() => setMode("compare")} /> Compare solvers, one after
            another
          </label>
          <label class="check">
            <input type="radio" name="mode" value="solve" checked={mode === "solve"} onChange={() => setMode("solve")} /> Solve once: a solver, auto or a race
          </label>
        </fieldset>
        {mode === "compare" ? (
          <SolverPicker chosen={solvers} onChange={setSolvers} />
        ) : (
          <SolverChoiceFields solver={solver} onSolver={setSolver} entrants={entrants} onEntrants={setEntrants} />
        )}
        <SettingsFields prefix="compare" />
        {mode === "compare" ? (
          <button type="submit" disabled={busy || solvers.length === 0 || (source === "file" && !content.trim() && !preview)}>
            Compare
          </button>
        ) : (
          <>
            <button type="submit" disabled={busy || source !== "file" || (!content.trim() && !preview) || !choiceReady(solver, entrants)}>
              Solve
            </button>
            {source === "file" ? null : <p class="hint">A single solve takes a file; a marketplace model is compared.</p>}
          </>
        )}
      </form>
      {mode === "solve" && source === "file" && preview ? <RecommendationPanel preview={preview} file={file} /> : null}
      <ErrorLine error={error} />
      {executionId ? <ExecutionView key={executionId} id={executionId} /> : null}
      {comparisonId ? <ComparisonView key={comparisonId} id={comparisonId} onSettled={recent.reload} /> : null}
      <h2>Recent comparisons</h2>
      <ul class="recent">
        {(recent.value?.comparisons ?? []).map((c) => (
          <li key={c.id}>
            <button type="button" class="link" onClick={() => setComparisonId(c.id)}>
              {c.problem_name}
            </button>{" "}
            <span class="hint">
              {c.status} · {c.solver_names.join(", ")} · {when(c.created_at)}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** A gzip file starts with 1f 8b; the service tells it the same way. */
async function isGzip(file: File): Promise<boolean> {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  return head[0] === 0x1f && head[1] === 0x8b;
}
