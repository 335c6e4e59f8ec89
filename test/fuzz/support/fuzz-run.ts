import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Contract, ContractViolation } from "../../support/contract.js";
import { type FuzzStack, type Organization, startFuzzStack } from "./fuzz-stack.js";
import { type FuzzRequest, type Operation, operationsOf, RequestFactory } from "./requests.js";

/**
 * Hostile input against the operations of the OpenAPI document, generated from the document itself
 * (requests.ts), in-process over the emulators. Per operation: FUZZ_RUNS requests (default 1,000);
 * FUZZ_SEED fixes the generation (printed). The requests the document refuses run first, with the
 * stored state compared before and after; then the rest. The operations are dealt to `shards` test
 * files, each with its own stack, so vitest runs them side by side.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261123;
/** A regular expression on operation ids. */
const ONLY = process.env.FUZZ_ONLY ? new RegExp(process.env.FUZZ_ONLY) : null;
const CONCURRENCY = 16;
/**
 * The bound on one shard: 1,000 requests on each of ~37 operations, some of which hash passwords
 * (scrypt) per request, take minutes on a quiet machine and far longer on a crowded one.
 */
const FUZZ_TIMEOUT_MS = Number(process.env.FUZZ_TIMEOUT_SECONDS ?? 2700) * 1000;

interface RouteTally {
  route: string;
  requests: number;
  refusalsChecked: number;
  foreign: number;
  statuses: Map<number, number>;
  serverErrors: number;
  solverBusy: number;
  schemaViolations: number;
  secretsFound: number;
  failures: string[];
  ms: number;
}

export function describeFuzzShard(shard: number, shards: number): void {
  let stack: FuzzStack;
  let own: Organization;
  let other: Organization;
  let contract: Contract;
  let factory: RequestFactory;
  let operations: Operation[];
  const tallies: RouteTally[] = [];

  async function firstChunk(res: Response): Promise<string> {
    const reader = res.body!.getReader();
    const timeout = new Promise<{ value?: Uint8Array }>((resolve) => setTimeout(() => resolve({}), 2_000));
    const { value } = await Promise.race([reader.read(), timeout]);
    await reader.cancel().catch(() => undefined);
    return value ? new TextDecoder().decode(value) : "";
  }

  /** Each operation's requests depend on the seed and its id only, so one operation reruns alone (FUZZ_ONLY) as it ran in the suite. */
  const seedOf = (id: string) => [...id].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) | 0, 0) & 0xffff;

  /** Deletes go last, so the records the other operations name still exist. */
  const order = (o: Operation) => (o.method === "DELETE" ? 1 : 0);

  function leakedSecrets(text: string): string[] {
    return [...stack.secrets].filter((s) => s.length >= 12 && text.includes(s));
  }

  /**
   * For a large response seen before, how many of the secrets (a set: in the order gathered, never
   * removed) it was already searched for. The OpenAPI document comes back unchanged 1,000 times, and
   * searching half a megabyte for every secret gathered so far (thousands late in a shard) was most of
   * its route's time; searching it for the new ones only finds the same leaks.
   */
  const searchedUpTo = new Map<string, number>();
  const LARGE_RESPONSE = 64 * 1024;
  const MAX_REMEMBERED = 16;

  function leakedSecretsInResponse(text: string): string[] {
    if (text.length < LARGE_RESPONSE) return leakedSecrets(text);
    const secrets = [...stack.secrets];
    const from = searchedUpTo.get(text) ?? 0;
    if (searchedUpTo.has(text) || searchedUpTo.size < MAX_REMEMBERED) searchedUpTo.set(text, secrets.length);
    return secrets.slice(from).filter((s) => s.length >= 12 && text.includes(s));
  }

  async function send(r: FuzzRequest, tally: RouteTally): Promise<void> {
    const res = await stack.call(r.method, r.url, { headers: r.headers, body: r.body });
    // An event stream (execution progress) stays open while its job runs, and no worker runs it here:
    // its first event is read, then the stream is closed.
    const text = (res.headers.get("content-type") ?? "").startsWith("text/event-stream") ? await firstChunk(res) : await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (the reference page)
    }
    tally.requests++;
    tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
    const fail = (what: string) => {
      if (tally.failures.length < 5) tally.failures.push(`${what}: ${r.method} ${r.url.slice(0, 120)} [${r.why}] → ${res.status} ${text.slice(0, 300)}`);
    };
    if (res.status >= 500 && process.env.FUZZ_DEBUG) console.error(r, stack.capturedOutput().slice(-3000));
    // No worker polls the fuzz stack's queue, so an admitted synchronous solve is answered 503 solver_busy
    // (documented: queued, poll the execution). Any other 5xx is a failure.
    const busy = res.status === 503 && (body as { error_code?: string } | null)?.error_code === "solver_busy";
    if (busy) tally.solverBusy++;
    else if (res.status >= 500) {
      tally.serverErrors++;
      fail("5xx");
    }
    try {
      contract.validate(r.method, new URL(`http://x${r.url}`).pathname, { status: res.status, headers: res.headers, body, text });
    } catch (error) {
      if (!(error instanceof ContractViolation)) throw error;
      tally.schemaViolations++;
      fail(`schema: ${error.message.slice(0, 400)}`);
    }
    const leaks = leakedSecretsInResponse(text);
    if (leaks.length > 0) {
      tally.secretsFound += leaks.length;
      fail("secret in response");
    }
    if (r.expect === "refuse" && res.status < 400) fail("accepted what the document refuses");
    if (r.expect === "foreign") {
      tally.foreign++;
      // Validation runs before the lookup, so a body the schema admits but a rule refuses is a 422 either way.
      if (res.status !== 404 && res.status !== 422) fail("another organization's id was not answered 404");
    }
    // What a success hands out once (a new key, a trigger's secrets, a session) must not reach a log line.
    if (res.status < 300 && body && typeof body === "object") {
      for (const field of ["key", "trigger_secret", "webhook_secret", "access_token"]) {
        const v = (body as Record<string, unknown>)[field];
        if (typeof v === "string" && v.length >= 12) stack.secrets.add(v);
      }
    }
  }

  async function runAll(requests: FuzzRequest[], tally: RouteTally): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) await send(requests[next++]!, tally);
      }),
    );
  }

  function diff(before: Map<string, string>, after: Map<string, string>): string[] {
    const keys = new Set([...before.keys(), ...after.keys()]);
    return [...keys]
      .filter((k) => before.get(k) !== after.get(k))
      .map((k) => `${k}: ${before.get(k)?.slice(0, 200) ?? "∅"} → ${after.get(k)?.slice(0, 200) ?? "∅"}`);
  }

  beforeAll(async () => {
    stack = await startFuzzStack();
    own = await stack.seedOrganization("own");
    other = await stack.seedOrganization("other");
    const doc = (await (await stack.call("GET", "/api/v2/openapi.json")).json()) as Record<string, any>;
    contract = new Contract(doc);
    factory = new RequestFactory(doc, { own, other });
    operations = operationsOf(doc)
      .filter((o, i) => i % shards === shard - 1 && (!ONLY || ONLY.test(o.id)))
      .sort((a, b) => order(a) - order(b));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (tallies.length === 0) return;
    const rows = tallies.map((t) => ({
      route: t.route,
      requests: t.requests,
      "refusals checked": t.refusalsChecked,
      "foreign ids": t.foreign,
      "5xx": t.serverErrors,
      "503 solver_busy": t.solverBusy,
      "schema violations": t.schemaViolations,
      "secrets found": t.secretsFound,
      ms: t.ms,
      statuses: [...t.statuses.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}:${n}`)
        .join(" "),
    }));
    console.log(`fuzz shard ${shard}/${shards}: seed ${SEED}, ${RUNS} requests per operation`);
    console.table(rows);
  });

  describe(`hostile input against the OpenAPI document's operations (shard ${shard} of ${shards})`, () => {
    it(
      "no 5xx, every response as documented, refusals store and charge nothing, another organization's ids are 404, no secret in any response or log line",
      async () => {
        for (const o of operations) {
          const tally: RouteTally = {
            route: `${o.method} ${o.template}`,
            requests: 0,
            refusalsChecked: 0,
            foreign: 0,
            statuses: new Map(),
            serverErrors: 0,
            solverBusy: 0,
            schemaViolations: 0,
            secretsFound: 0,
            failures: [],
            ms: 0,
          };
          const started = performance.now();
          tallies.push(tally);
          const requests = fc.sample(factory.arbitrary(o), { numRuns: RUNS, seed: SEED + seedOf(o.id) });
          const refusals = requests.filter((r) => r.expect !== "open");
          const before = await stack.snapshot();
          if (process.env.FUZZ_BISECT) {
            for (const r of refusals) {
              const b = await stack.snapshot();
              await send(r, tally);
              const d = diff(b, await stack.snapshot());
              if (d.length) console.error("STORED BY", r.method, r.url, r.why, r.body?.slice(0, 300), [...tally.statuses.keys()], d.join("\n").slice(0, 1500));
            }
          } else await runAll(refusals, tally);
          const changed = diff(before, await stack.snapshot());
          if (changed.length > 0) tally.failures.push(`refused requests changed stored state:\n  ${changed.slice(0, 6).join("\n  ")}`);
          tally.refusalsChecked = refusals.length;
          await runAll(
            requests.filter((r) => r.expect === "open"),
            tally,
          );
          tally.ms = Math.round(performance.now() - started);
        }
        const leakedInLogs = leakedSecrets(stack.capturedOutput());
        const failures = tallies.flatMap((t) => t.failures.map((f) => `${t.route}: ${f}`));
        expect(leakedInLogs.map((s) => `${s.slice(0, 6)}…`)).toEqual([]);
        expect(failures).toEqual([]);
        for (const t of tallies) expect(t.requests, t.route).toBeGreaterThanOrEqual(RUNS);
      },
      FUZZ_TIMEOUT_MS,
    );
  });
}
