import { readFileSync } from "node:fs";
import http from "node:http";
import { signUp } from "../support/accounts.js";
import { type Api, startTestStack } from "../support/test-stack.js";

/**
 * The abuse suite's shared tools (issue 25, Build 7): a stack, a self-signed-up tenant, an attack with
 * /health probed while it is in flight, and memory read from /proc. What they give is evidence that does
 * not depend on the machine's speed: the order in which answers arrive, counts, statuses, bytes and RSS.
 * Times belong to `npm run bench -- abuse`, never to an assertion.
 */
export type AbuseStack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * A local stack for one abuse file. Rate limits are the defaults unless `env` says otherwise (an attack
 * must meet the limits a real deployment has); WEBHOOK_ALLOW_PRIVATE_NETWORKS is off, as in AWS.
 */
export function startAbuseStack(env: Record<string, string> = {}): Promise<AbuseStack> {
  return startTestStack({ env: { LOCAL_WORKERS: "0", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false", ...env } });
}

let tenants = 0;

/** An attacker with an account: signed up a moment ago (owner of a new organization), with an API key. */
export async function selfSignedUpTenant(stack: AbuseStack): Promise<{ api: Api; email: string; orgId: string }> {
  const anonymous = stack.api.as(null);
  const email = `attacker${++tenants}-${process.pid}@example.test`;
  const password = "attacker password 1";
  // Sign-up mails a token; the account is made when it comes back (accounts.ts).
  const signup = await signUp(anonymous, stack.mail, { organization_name: `attackers ${tenants}`, email, password });
  if (signup.status !== 201) throw new Error(`sign-up: ${signup.status} ${signup.text}`);
  const login = await anonymous.post("/api/v2/auth/login", { email, password });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`);
  const key = await anonymous.as(login.body.access_token).post("/api/v2/keys", { name: "attack" });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { api: anonymous.as(key.body.key), email, orgId: signup.body.organization_id };
}

export interface HealthProbe {
  status: number;
  /** The attack had not been answered yet when this probe's answer arrived. */
  duringAttack: boolean;
}

export interface AttackObservation<T> {
  result: T;
  /** Every /health probe sent while the attack was in flight, in order (one after another, ~5 ms apart). */
  probes: HealthProbe[];
  /** At least one /health answered 200 before the attack's own answer arrived. */
  healthAnsweredDuringAttack: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attack` and probes `GET /api/v2/health` one request after another until the attack is answered
 * (and once more after, so even an attack answered at once has a probe). For an attack that takes long,
 * `healthAnsweredDuringAttack` says the service kept answering meanwhile: with the event loop held, no
 * probe could be answered before the attack.
 */
export async function whileAttacking<T>(baseUrl: string, attack: () => Promise<T>): Promise<AttackObservation<T>> {
  let answered = false;
  const probes: HealthProbe[] = [];
  const attacking = attack().finally(() => {
    answered = true;
  });
  const probing = (async () => {
    do {
      const res = await fetch(`${baseUrl}/api/v2/health`);
      await res.arrayBuffer();
      probes.push({ status: res.status, duringAttack: !answered });
      if (!answered) await sleep(5);
    } while (!answered);
  })();
  const result = await attacking;
  await probing;
  return { result, probes, healthAnsweredDuringAttack: probes.some((p) => p.duringAttack && p.status === 200) };
}

/** A process's resident set now and at its peak (VmRSS, VmHWM), MB. */
export function memoryMb(pid: number = process.pid): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export interface StreamedPost {
  status: number;
  body: string;
  /** Bytes of the body written before the answer arrived. */
  sentBytes: number;
}

/**
 * POSTs a body of `totalBytes` written in 1 MB chunks of one reused buffer, so the attacker's own memory
 * stays flat, and stops writing the moment the answer arrives: `sentBytes` is then how much the server
 * took before it answered. With `chunked`, no Content-Length is sent (the server must count as it reads).
 */
export function streamedPost(
  baseUrl: string,
  path: string,
  totalBytes: number,
  options: { chunked?: boolean; headers?: Record<string, string> } = {},
): Promise<StreamedPost> {
  const url = new URL(path, baseUrl);
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  const length: Record<string, string> = options.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(totalBytes) };
  return new Promise((resolve, reject) => {
    let sentBytes = 0;
    let answered = false;
    const req = http.request(url, { method: "POST", headers: { "content-type": "application/json", ...length, ...options.headers } });
    req.on("response", (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString("utf8"), sentBytes });
        req.destroy();
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sentBytes < totalBytes) {
        const n = Math.min(chunk.length, totalBytes - sentBytes);
        sentBytes += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          req.once("drain", pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** A JModel model whose size one parameter names: the 37-byte override of issue 25 makes it any size. */
export const SIZED_MODEL = "param n; set I := 1..n; var x{I} >= 0; minimize z: sum{i in I} x[i]; s.t. c{i in I}: x[i] >= 1;";
/** A model whose size is its data's: two parameters, n × m variables (the "1000×1000 model"). */
export const GRID_MODEL = "param n; param m; set I := 1..n; set J := 1..m; var x{I, J} >= 0; minimize z: sum{i in I, j in J} x[i, j];";

/** An MPS file of `columns` columns, one row, every column in it: ~40 bytes a column. */
export function wideMps(columns: number): string {
  const lines = ["NAME wide", "ROWS", " N obj", " G r1", "COLUMNS"];
  for (let j = 0; j < columns; j++) lines.push(`    x${j}  obj  1  r1  1`);
  lines.push("RHS", "    rhs  r1  1", "ENDATA");
  return `${lines.join("\n")}\n`;
}
