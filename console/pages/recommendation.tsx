import type { AutoChoice, ProblemPreview } from "@incumbent/client";
import { client } from "../api.js";
import { fmt, useLatestLoad } from "../ui.js";

/**
 * How long the model must stay the same before it is sent: a pasted problem re-read twice, or two files
 * chosen one after the other, ask once. The POST is counted as a solve request and carries the whole problem.
 */
const ASK_AFTER_MS = 300;

const BASIS: Record<AutoChoice["basis"], string> = {
  organization: "your organization's comparisons",
  public: "the public benchmark table",
  default_rule: "the default rule",
};

/** What a choice stood on: how many comparisons were read and the similar problems it judged by. */
function Evidence({ choice }: { choice: AutoChoice }) {
  const similar = choice.evidence.similar_problems;
  return (
    <>
      <dt>Basis</dt>
      <dd data-basis={choice.basis}>{BASIS[choice.basis]}</dd>
      <dt>Evidence</dt>
      <dd class="evidence">
        {choice.evidence.comparisons} comparison(s) read
        {similar.length > 0 ? `; judged by ${similar.length} similar problem(s): ${similar.slice(0, 8).join(", ")}${similar.length > 8 ? ", …" : ""}` : ""}
      </dd>
    </>
  );
}

/** Why `auto` ran the solver it did, on an execution that asked for auto. */
export function AutoChoiceFacts({ choice }: { choice: AutoChoice }) {
  return (
    <section class="auto-choice" aria-labelledby="auto-choice-title">
      <h3 id="auto-choice-title">Why auto chose {choice.solver}</h3>
      <p class="reason" data-testid="auto-reason">
        {choice.reason}
      </p>
      <dl class="facts">
        <Evidence choice={choice} />
      </dl>
    </section>
  );
}

/**
 * Before solving: what auto would run for this problem now, the ranking with expected times, and why.
 * Asked as `auto` itself judges (POST with the problem: its coefficient ranges and structure, not only its
 * sizes): the file itself when the page holds one (its bytes as they are, gzip too), else the parsed
 * problem. Asked once per model, after it settles; a request for a model since replaced is aborted.
 */
export function RecommendationPanel({ preview, file }: { preview: ProblemPreview; file: File | null }) {
  const recommended = useLatestLoad(
    (signal) => (file ? client.recommendationForFile({ content: file, filename: file.name }, signal) : client.recommendationFor(preview.problem, signal)),
    [preview, file],
    ASK_AFTER_MS,
  );
  const r = recommended.value;
  const stats = preview.stats;
  return (
    <section class="recommendation" aria-labelledby="recommendation-title" aria-live="polite">
      <h2 id="recommendation-title">Recommended solver</h2>
      {recommended.pending ? <p class="hint">Asking what auto would run…</p> : null}
      {recommended.error ? <p class="hint">No recommendation: {recommended.error}</p> : null}
      {r ? (
        <>
          <p>
            <code>auto</code> would run <strong data-testid="recommended-solver">{r.solver}</strong> for this {stats.problem_class}.
          </p>
          <p class="reason" data-testid="recommendation-reason">
            {r.reason}
          </p>
          <dl class="facts">
            <Evidence choice={r} />
          </dl>
          <table class="ranking">
            <caption>Every able solver, fastest expected first</caption>
            <thead>
              <tr>
                <th scope="col">Solver</th>
                <th scope="col">Expected (s)</th>
                <th scope="col">Fastest on</th>
                <th scope="col">Runs</th>
              </tr>
            </thead>
            <tbody>
              {r.ranking.map((row) => (
                <tr key={row.solver} data-solver={row.solver}>
                  <th scope="row">{row.solver}</th>
                  <td>{row.expected_seconds === null ? "not enough evidence" : fmt(row.expected_seconds, 3)}</td>
                  <td>{row.fastest_on}</td>
                  <td>{row.runs}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}
