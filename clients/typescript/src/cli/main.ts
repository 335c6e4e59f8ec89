import { Command, InvalidArgumentError, Option } from "commander";
import { createInterface } from "node:readline/promises";
import { IncumbentClient, unwrap } from "../client.js";
import { IncumbentError } from "../errors.js";
import type { SolverChoice } from "../types.js";
import {
  keysCreateCommand,
  keysListCommand,
  keysRevokeCommand,
  logCommand,
  statusCommand,
  triggerFireCommand,
  triggerListCommand,
  triggerRunsCommand,
} from "./commands.js";
import { EXIT, EXIT_CODE_HELP } from "./exit-codes.js";
import { recommendCommand } from "./recommend.js";
import { configFile, resolveConnection, UsageError, writeSaved } from "./settings.js";
import { compareCommand, type Io, SOLVER_CHOICES, solveCommand } from "./solve.js";

/**
 * `incumbent`: the service from a shell. Every command resolves the URL and key the same way (flags,
 * INCUMBENT_URL / INCUMBENT_API_KEY, then what `incumbent login` saved) and exits with the verdict's
 * code (exit-codes.ts).
 */
const positiveNumber = (what: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`${what} must be a non-negative number.`);
  return n;
};
const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a whole number of at least 1.");
  return n;
};
const solverList = (value: string) => {
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new InvalidArgumentError("name at least one solver, e.g. highs,cbc,jaos.");
  return names;
};

/** `--race` alone races the service's default entrants; `--race highs,cbc` names two or more. */
const raceList = (value: string) => {
  const names = solverList(value);
  if (names.length < 2 || new Set(names).size !== names.length) throw new InvalidArgumentError("name two or more different solvers, e.g. highs,cbc.");
  return names;
};

interface Global {
  url?: string;
  apiKey?: string;
  json: boolean;
}

export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command("incumbent")
    .description("Solve, compare and trigger LP/MILP solves on an Incumbent service.")
    .option("--url <url>", "the service's URL (default: INCUMBENT_URL, then the saved login)")
    .option("--api-key <key>", "an API key (default: INCUMBENT_API_KEY, then the saved login)")
    .option("--json", "print machine-readable JSON (with --watch: one JSON event per line)", false)
    .addHelpText("after", `\n${EXIT_CODE_HELP}\n`)
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) })
    .exitOverride();

  const connect = (): IncumbentClient => {
    const flags = program.opts<Global>();
    const connection = resolveConnection(flags);
    if (!connection.apiKey) throw new UsageError("No API key: pass --api-key, set INCUMBENT_API_KEY, or run `incumbent login`.");
    return new IncumbentClient({ baseUrl: connection.url, credential: connection.apiKey });
  };
  const json = () => program.opts<Global>().json;
  const run = (action: () => Promise<number>) => async () => setExit(await action());

  program
    .command("solve")
    .description("solve an MPS or LP file (gzip-compressed or not) and print the verdict")
    .argument("<file>", "the problem file: .mps, .lp, .mps.gz, .lp.gz")
    .addOption(new Option("-s, --solver <solver>", "the solver").choices(SOLVER_CHOICES).default("auto"))
    .option("-t, --time-limit <seconds>", "time limit in seconds", positiveNumber("the time limit"))
    .option("-g, --gap <tolerance>", "relative gap tolerance", positiveNumber("the gap tolerance"))
    .option("--race [solvers]", "race several solvers at once (comma-separated, two or more; none: every able solver); the first proven answer wins", raceList)
    .option("-w, --watch", "show live progress: incumbent, bound, gap, elapsed (a race: each entrant's row)", false)
    .addHelpText(
      "after",
      "\nWith --race (or --solver race) the result lists each entrant's final row and marks the winner with *.\nWith --solver auto (the default) the result says why auto chose its solver.\n",
    )
    .action((file: string, o: { solver: SolverChoice; race?: string[] | true; timeLimit?: number; gap?: number; watch: boolean }) =>
      run(() => solveCommand(connect(), { ...o, file, json: json() }, io))(),
    );

  program
    .command("recommend")
    .description("which solver auto would run for a file, the ranking with expected times, and why")
    .argument("<file>", "the problem file: .mps, .lp, .mps.gz, .lp.gz")
    .action((file: string) => run(() => recommendCommand(connect(), { file, json: json() }, io))());

  program
    .command("compare")
    .description("run several solvers on one file, one after another, and print the table")
    .argument("<file>", "the problem file: .mps, .lp, .mps.gz, .lp.gz")
    .requiredOption("--solvers <list>", "comma-separated solvers, e.g. highs,cbc,jaos", solverList)
    .option("-t, --time-limit <seconds>", "time limit per solver in seconds", positiveNumber("the time limit"))
    .option("-g, --gap <tolerance>", "relative gap tolerance", positiveNumber("the gap tolerance"))
    .option("-w, --watch", "show a live table that fills as each solver runs and finishes", false)
    .action((file: string, o: { solvers: string[]; timeLimit?: number; gap?: number; watch: boolean }) =>
      run(() => compareCommand(connect(), { ...o, file, json: json() }, io))(),
    );

  program
    .command("status")
    .description("an execution (exe_…) or a comparison (cmp_…): its state and verdict")
    .argument("<id>")
    .action((id: string) => run(() => statusCommand(connect(), { id, json: json() }, io))());

  program
    .command("log")
    .description("an execution's solver log")
    .argument("<execution-id>")
    .option("-f, --follow", "keep printing lines until the solve ends", false)
    .action((id: string, o: { follow: boolean }) => run(() => logCommand(connect(), { id, json: json(), follow: o.follow }, io))());

  const trigger = program.command("trigger").description("triggers: list them, fire one, read its runs");
  trigger
    .command("list")
    .description("the organization's triggers")
    .action(() => run(() => triggerListCommand(connect(), { json: json() }, io))());
  trigger
    .command("fire")
    .description("fire a trigger with its own secret (not an API key)")
    .argument("<trigger-id>")
    .option("--secret <secret>", "the trigger's secret (default: INCUMBENT_TRIGGER_SECRET)")
    .option("--data <json>", "override values, a JSON object")
    .addOption(new Option("--secret-in <where>", "send the secret in the Authorization header or the body").choices(["header", "body"]).default("header"))
    .action((id: string, o: { secret?: string; data?: string; secretIn: "header" | "body" }) =>
      run(() => {
        // A fire needs no API key: the URL alone, and the trigger's secret.
        const { url } = resolveConnection(program.opts<Global>());
        return triggerFireCommand(new IncumbentClient({ baseUrl: url }), { triggerId: id, json: json(), ...o }, io);
      })(),
    );
  trigger
    .command("runs")
    .description("a trigger's runs, newest first")
    .argument("<trigger-id>")
    .option("--page <n>", "page", positiveInt, 1)
    .option("--page-size <n>", "runs per page (at most 100)", positiveInt, 20)
    .action((id: string, o: { page: number; pageSize: number }) => run(() => triggerRunsCommand(connect(), { triggerId: id, json: json(), ...o }, io))());

  const keys = program.command("keys").description("your API keys (list by default)");
  keys
    .command("list", { isDefault: true })
    .description("your API keys")
    .action(() => run(() => keysListCommand(connect(), { json: json() }, io))());
  keys
    .command("create")
    .description("create an API key (the key is shown once)")
    .argument("<name>")
    .action((name: string) => run(() => keysCreateCommand(connect(), { name, json: json() }, io))());
  keys
    .command("revoke")
    .description("revoke an API key")
    .argument("<key-id>")
    .action((id: string) => run(() => keysRevokeCommand(connect(), { keyId: id, json: json() }, io))());

  program
    .command("login")
    .description(`check a URL and API key against the service and save them (${configFile()}, readable by you only)`)
    .action(() =>
      run(async () => {
        const flags = program.opts<Global>();
        const { url, apiKey } = resolveConnection(flags);
        const key = apiKey ?? (await askKey(io));
        if (!key) throw new UsageError("No API key given.");
        const me = await unwrap(new IncumbentClient({ baseUrl: url, credential: key }).api.GET("/api/v2/auth/me"));
        const file = writeSaved({ url, api_key: key });
        io.out.write(json() ? `${JSON.stringify({ url, user: me, saved_to: file })}\n` : `Signed in to ${url} as ${me.email} (${me.role}); saved to ${file}\n`);
        return EXIT.optimal;
      })(),
    );

  return program;
}

/** The key from standard input: a prompt on a terminal, else the first line piped in. */
async function askKey(io: Io): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: io.err, terminal: process.stdin.isTTY ?? false });
  try {
    return (await rl.question(process.stdin.isTTY ? "API key: " : "")).trim();
  } finally {
    rl.close();
  }
}

/** Runs the command line; resolves to the exit code. */
export async function main(argv: string[], io: Io = { out: process.stdout, err: process.stderr }): Promise<number> {
  let code: number = EXIT.optimal;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: Io): number {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string" && error.code.startsWith("commander.")) {
    const exitCode = (error as { exitCode?: number }).exitCode ?? EXIT.usage;
    // --help and --version end the program without fault; commander printed what it had to say.
    return exitCode === 0 ? EXIT.optimal : EXIT.usage;
  }
  if (error instanceof UsageError) {
    io.err.write(`incumbent: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof IncumbentError) {
    io.err.write(
      `incumbent: ${error.message} (HTTP ${error.status}${error.code ? `, ${error.code}` : ""}${error.requestId ? `, request ${error.requestId}` : ""})\n`,
    );
    return EXIT.error;
  }
  io.err.write(`incumbent: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.error;
}
