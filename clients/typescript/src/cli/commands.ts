import Table from "cli-table3";
import { type IncumbentClient, unwrap } from "../client.js";
import { EXIT, comparisonExit, executionExit } from "./exit-codes.js";
import { comparisonTable, executionSummary, num } from "./render.js";
import type { Io } from "./solve.js";

const json = (value: unknown) => `${JSON.stringify(value)}\n`;
const table = (head: string[], rows: (string | number | null)[][]) => {
  const t = new Table({ head, style: { head: [], border: [] } });
  for (const row of rows) t.push(row.map((cell) => (cell === null ? "-" : String(cell))));
  return `${t.toString()}\n`;
};

/** `incumbent status ID`: an execution (exe_…) or a comparison (cmp_…); the exit code is its verdict, 8 while it runs. */
export async function statusCommand(client: IncumbentClient, { id, ...options }: { id: string; json: boolean }, io: Io): Promise<number> {
  if (id.startsWith("cmp_")) {
    const detail = await client.comparison(id);
    io.out.write(options.json ? json(detail) : `${comparisonTable(detail)}\n`);
    return comparisonExit(detail);
  }
  const view = await client.execution(id);
  io.out.write(options.json ? json(view) : `${executionSummary(view)}\n`);
  return executionExit(view);
}

/** `incumbent log ID`: the solver's log so far, page by page; with --follow, live until the solve ends. */
export async function logCommand(client: IncumbentClient, { id, ...options }: { id: string; json: boolean; follow: boolean }, io: Io): Promise<number> {
  if (options.follow) {
    for await (const e of client.executionEvents(id)) {
      if (options.json) io.out.write(json(e));
      else if (e.event === "log") io.out.write(`${e.data.line}\n`);
    }
    return EXIT.optimal;
  }
  let offset = 0;
  for (;;) {
    const page = await unwrap(
      client.api.GET("/api/v2/models/executions/{execution_id}/log", { params: { path: { execution_id: id }, query: { offset, progress_offset: 0 } } }),
    );
    for (const line of page.lines) io.out.write(options.json ? json({ offset: offset++, line }) : `${line}\n`);
    // A page shorter than the bound, or one that moved nothing on, is the end of the log so far.
    if (page.done || page.lines.length === 0 || page.next_offset === page.offset) return EXIT.optimal;
    offset = page.next_offset;
  }
}

export async function triggerListCommand(client: IncumbentClient, options: { json: boolean }, io: Io): Promise<number> {
  const triggers = await unwrap(client.api.GET("/api/v2/triggers"));
  if (options.json) io.out.write(json(triggers));
  else {
    const rows = triggers.map((t) => [t.id, t.name, t.is_enabled ? "enabled" : "disabled", t.total_runs, t.last_fired_at ?? null, t.trigger_secret_prefix]);
    io.out.write(table(["id", "name", "state", "runs", "last fired", "secret prefix"], rows));
  }
  return EXIT.optimal;
}

export async function triggerFireCommand(
  client: IncumbentClient,
  { triggerId, ...options }: { triggerId: string; json: boolean; secret?: string; data?: string; secretIn: "header" | "body" },
  io: Io,
): Promise<number> {
  const secret = options.secret ?? process.env.INCUMBENT_TRIGGER_SECRET;
  if (!secret) {
    io.err.write("A fire needs the trigger's own secret: --secret or INCUMBENT_TRIGGER_SECRET (not an API key).\n");
    return EXIT.usage;
  }
  let overrideData: Record<string, unknown> | undefined;
  if (options.data !== undefined) {
    try {
      const parsed: unknown = JSON.parse(options.data);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
      overrideData = parsed as Record<string, unknown>;
    } catch {
      io.err.write(`--data must be a JSON object of override values, e.g. '{"capacity": 350}'.\n`);
      return EXIT.usage;
    }
  }
  const fired = await client.fireTrigger(triggerId, { secret, secretIn: options.secretIn, ...(overrideData ? { overrideData } : {}) });
  io.out.write(options.json ? json(fired) : `${fired.run_id}  ${fired.status}\n`);
  return EXIT.optimal;
}

export async function triggerRunsCommand(
  client: IncumbentClient,
  { triggerId, ...options }: { triggerId: string; json: boolean; page: number; pageSize: number },
  io: Io,
): Promise<number> {
  const page = await unwrap(
    client.api.GET("/api/v2/triggers/{trigger_id}/runs", {
      params: { path: { trigger_id: triggerId }, query: { page: options.page, page_size: options.pageSize } },
    }),
  );
  if (options.json) io.out.write(json(page));
  else {
    const rows = page.items.map((r) => {
      const result = r.result_data as { status?: string; objective_value?: number | null } | null;
      return [r.id, r.status, result?.status ?? null, num(result?.objective_value), r.created_at, r.completed_at ?? null];
    });
    io.out.write(table(["run", "status", "verdict", "objective", "created", "completed"], rows));
    io.out.write(`page ${page.page} of ${Math.max(1, Math.ceil(page.total / page.page_size))} (${page.total} runs)\n`);
  }
  return EXIT.optimal;
}

export async function keysListCommand(client: IncumbentClient, options: { json: boolean }, io: Io): Promise<number> {
  const keys = await unwrap(client.api.GET("/api/v2/keys"));
  if (options.json) io.out.write(json(keys));
  else
    io.out.write(
      table(
        ["id", "name", "prefix", "status", "created", "expires"],
        keys.keys.map((k) => [k.id, k.name, k.prefix, k.status, k.created_at, k.expires_at]),
      ),
    );
  return EXIT.optimal;
}

export async function keysCreateCommand(client: IncumbentClient, { name, ...options }: { name: string; json: boolean }, io: Io): Promise<number> {
  const created = await unwrap(client.api.POST("/api/v2/keys", { body: { name } }));
  io.out.write(options.json ? json(created) : `${created.id}  ${created.key}\nThe key is shown once: keep it now.\n`);
  return EXIT.optimal;
}

export async function keysRevokeCommand(client: IncumbentClient, { keyId, ...options }: { keyId: string; json: boolean }, io: Io): Promise<number> {
  await unwrap(client.api.DELETE("/api/v2/keys/{key_id}", { params: { path: { key_id: keyId } } }));
  io.out.write(options.json ? json({ id: keyId, revoked: true }) : `${keyId} revoked\n`);
  return EXIT.optimal;
}
