/**
 * `npm start`: the whole service locally on embedded emulators.
 *   --data DIR   keep data on disk in DIR (default: in memory, gone on exit)
 *   PORT, BOOTSTRAP_EMAIL, BOOTSTRAP_PASSWORD, BOOTSTRAP_API_KEY, LOCAL_WORKERS: see README.
 * `npm start` first runs scripts/setup-test-env.sh (prestart), which installs the solvers it can.
 */
import { parseArgs } from "node:util";

// The local stack runs on Node 20 by design (Lambda runs 22); the SDK's upgrade notice is known.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const { startLocalStack } = await import("./local/local-stack.js");

const { values } = parseArgs({ options: { data: { type: "string" }, port: { type: "string" } }, allowPositionals: false });

const stack = await startLocalStack({ dataDir: values.data, port: values.port ? Number(values.port) : undefined });
const b = stack.bootstrap;
const lines = [
  "",
  `Incumbent is running at ${stack.url}`,
  `  API reference  ${stack.url}/api/v2/docs`,
  `  health         ${stack.url}/api/v2/health`,
  b.created ? `  owner          ${b.email} / password ${b.password}` : `  owner          ${b.email} (created on an earlier start)`,
  b.created ? `  API key        ${b.apiKey}   (shown once: keep it)` : "  API key        created on an earlier start (POST /api/v2/keys makes more)",
  `  data           ${values.data ? values.data : "in memory (use --data DIR to keep it)"}`,
  "  solvers:",
  ...stack.solvers.map((s) => `    ${s.name.padEnd(6)} ${s.available ? `available  ${s.version ?? ""}` : `not available (${s.detail ?? "unknown"})`}`),
  "",
  `Try: curl -H "Authorization: Bearer <API key>" ${stack.url}/api/v2/credits/balance`,
  "Ctrl-C stops everything.",
  "",
];
console.log(lines.join("\n"));
// The workers warm up (Python host, jaos child) while the server already answers; a solve sent before
// they poll waits in the queue.
void stack.workers.ready().then((ok) => {
  if (stack.workers.size > 0)
    console.log(ok ? `${stack.workers.size} solver workers are polling the jobs queue.` : "A solver worker exited while starting; it is replaced.");
});

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping…`);
  await stack.stop();
  process.exit(0);
};
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
