import { call, client } from "../api.js";
import { ErrorLine, fmt, useLoad, when } from "../ui.js";

/** The public health endpoints: status with its components, the request metrics, the runtime. */
export function HealthPage() {
  const health = useLoad(
    () => Promise.all([call(client.api.GET("/api/v2/health/status")), call(client.api.GET("/api/v2/health/metrics")), call(client.api.GET("/api/v2/health"))]),
    [],
  );
  const [status, metrics, system] = health.value ?? [null, null, null];
  return (
    <>
      <h1 tabIndex={-1}>Health</h1>
      <ErrorLine error={health.error} />
      {status ? (
        <>
          <p>
            Status: <strong class={`status-${status.status}`}>{status.status}</strong> · version {status.version} · {status.checks_passed}/{status.checks_total}{" "}
            checks passed · target {status.sla_target}
          </p>
          <table>
            <caption>Components</caption>
            <thead>
              <tr>
                <th scope="col">Component</th>
                <th scope="col">Status</th>
                <th scope="col">Latency (ms)</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {status.components.map((c) => (
                <tr key={c.name}>
                  <td>{c.name}</td>
                  <td>{c.status}</td>
                  <td>{fmt(c.latency_ms, 3)}</td>
                  <td>{c.message ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {metrics ? (
        <dl class="facts">
          <dt>Up since</dt>
          <dd>{when(metrics.start_time)}</dd>
          <dt>Requests</dt>
          <dd>
            {metrics.total_requests} ({metrics.total_successful} successful, {metrics.total_failed} failed)
          </dd>
          <dt>Problems solved</dt>
          <dd>{metrics.problem_stats?.total_solved}</dd>
          <dt>Average solve time (ms)</dt>
          <dd>{fmt(metrics.problem_stats?.avg_solve_time_ms, 4)}</dd>
          {system ? (
            <>
              <dt>CPU</dt>
              <dd>{fmt(system.system?.cpu_percent, 3)} %</dd>
              <dt>Memory</dt>
              <dd>
                {fmt(system.system?.memory_percent, 3)} % ({fmt(system.system?.memory_available_mb, 5)} MB available)
              </dd>
              <dt>Solver engine</dt>
              <dd>{system.solver}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
    </>
  );
}
