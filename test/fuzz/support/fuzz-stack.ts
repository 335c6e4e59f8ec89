import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { randomBytes } from "node:crypto";
import { readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Hono } from "hono";
import { ensureQueueWithDlq, startEmulators } from "../../../bin/local/emulators.js";
import { createApp } from "../../../functions/api/app.js";
import type { ApiEnv } from "../../../functions/api/http/context.js";
import { loadConfig } from "../../../functions/core/config.js";
import { createLogger } from "../../../functions/core/logger.js";
import { createSqsClient } from "../../../functions/core/queue/sqs.js";
import { createServices, type Services } from "../../../functions/core/services.js";
import { ensureTable } from "../../../functions/core/store/dynamo.js";
import { TINY_LP } from "../../support/models.js";

/**
 * The API in-process for the fuzz suite: the real app and services over the embedded emulators
 * (dynalite, fauxqs), called through `app.request`. No solver worker polls the jobs queue, so an
 * admitted solve is charged and queued, never run. Every line the process writes while the suite runs
 * is captured (the logger at DEBUG), to be searched for secrets.
 */
export interface Organization {
  orgId: string;
  ownerId: string;
  email: string;
  password: string;
  apiKey: string;
  /** Real ids of this organization's records, by path parameter name. */
  ids: Record<string, string[]>;
  /** The secrets of its triggers (fire's credential). */
  triggerSecrets: Record<string, string>;
}

export interface FuzzStack {
  app: Hono<ApiEnv>;
  services: Services;
  /** Secrets that must never appear in a log line, nor in a response that did not create them. */
  secrets: Set<string>;
  mail: string[];
  /** Output written since the stack started (stdout and stderr). */
  capturedOutput(): string;
  call(method: string, url: string, init?: { headers?: Record<string, string>; body?: string }): Promise<Response>;
  seedOrganization(label: string): Promise<Organization>;
  /** Everything an organization's requests may store or charge, for before/after comparison. */
  snapshot(): Promise<Map<string, string>>;
  stop(): Promise<void>;
}

export const MAX_BODY_MB = 1;

/** Keys of items that change without anything being stored: rate-limit windows and metrics. The daily solve quota is kept. */
const isVolatile = (pk: string) => (pk.startsWith("LIMIT#") && !pk.startsWith("LIMIT#QUOTA#")) || pk === "METRICS" || pk.startsWith("METRICS#");
/** Attributes a read may refresh (an API key's last use). */
const VOLATILE_ATTRIBUTES = new Set(["last_used_at", "last_used_at_ms"]);

const LP = TINY_LP;

export async function startFuzzStack(): Promise<FuzzStack> {
  const captured: string[] = [];
  const writes = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  const capture = (chunk: unknown) => {
    captured.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  const restoreOutput = () => {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
  };

  const emulators = await startEmulators();
  // The SDK's credential chain reads the environment; the emulators accept any credentials.
  process.env.AWS_ACCESS_KEY_ID ??= "local";
  process.env.AWS_SECRET_ACCESS_KEY ??= "local";
  const blobDir = path.join(tmpdir(), `incumbent-fuzz-${process.pid}-${Date.now()}`);
  const config0 = loadConfig({
    ...process.env,
    AWS_ENDPOINT_URL: emulators.dynamoEndpoint,
    AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    TABLE_NAME: "fuzz",
    BLOB_DIR: blobDir,
    MAX_REQUEST_BODY_MB: String(MAX_BODY_MB),
    // No worker polls: a synchronous solve gives up waiting at once (503 solver_busy, queued).
    SOLVE_WAIT_SECONDS: "0.01",
    // 0 = counted, never refused: the fuzz reaches validation and handlers, not only the 429.
    ...Object.fromEntries(
      [
        "INSTANCE_RATE_LIMIT",
        "SOLVE_RATE_LIMIT",
        "MODELS_EXECUTE_RATE_LIMIT",
        "MODELS_READ_RATE_LIMIT",
        "CREDITS_CALCULATOR_RATE_LIMIT",
        "AUTH_LOGIN_RATE_LIMIT",
        "AUTH_LOGIN_PER_EMAIL_RATE_LIMIT",
        "AUTH_SIGNUP_RATE_LIMIT",
      ].flatMap((p) => [
        [`${p}_PER_MINUTE`, "0"],
        [`${p}_PER_DAY`, "0"],
      ]),
    ),
    AUTH_PASSWORD_RESET_RATE_LIMIT_PER_HOUR: "0",
    TRIGGER_FIRE_RATE_LIMIT_PER_MINUTE: "0",
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  });
  const previousLevel = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = "DEBUG";
  const logger = createLogger("incumbent");
  if (previousLevel === undefined) delete process.env.LOG_LEVEL;
  else process.env.LOG_LEVEL = previousLevel;

  const sqs = createSqsClient(config0);
  const jobs = await ensureQueueWithDlq(sqs, "fuzz-solve-jobs", { visibilityTimeoutSeconds: 60, maxReceiveCount: 5 });
  const hooks = await ensureQueueWithDlq(sqs, "fuzz-webhooks", { visibilityTimeoutSeconds: 60, maxReceiveCount: 5 });
  const config = { ...config0, jobsQueueUrl: jobs.url, webhooksQueueUrl: hooks.url, webhooksDlqUrl: hooks.dlqUrl };
  const mail: string[] = [];
  const secrets = new Set<string>();
  const services = createServices({
    config,
    jwtSecret: randomBytes(32).toString("hex"),
    logger,
    sqs,
    mailbox: (_to, _subject, body) => {
      mail.push(body);
      // Reset tokens travel only by mail: any long token in it is a secret.
      for (const token of body.match(/[A-Za-z0-9_-]{24,}/g) ?? []) secrets.add(token);
    },
  });
  await ensureTable(services.dynamo, config.tableName);
  const app = createApp({ ...services, startedAtMs: services.clock.now(), clientIp: () => "127.0.0.1" });

  const call = (method: string, url: string, init: { headers?: Record<string, string>; body?: string } = {}) =>
    Promise.resolve(app.request(`http://fuzz.local${url}`, { method, headers: init.headers, body: init.body }));

  async function json(method: string, url: string, token: string, body?: unknown): Promise<any> {
    const res = await call(method, url, {
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = await res.json();
    if (res.status >= 300) throw new Error(`fuzz setup: ${method} ${url} → ${res.status} ${JSON.stringify(parsed)}`);
    return parsed;
  }

  async function seedOrganization(label: string): Promise<Organization> {
    const email = `owner-${label}@fuzz.example`;
    const password = `pw-${label}-${randomBytes(12).toString("hex")}`;
    const { org, user } = await services.auth.createOrganizationWithOwner({ orgName: `Fuzz ${label}`, email, password, name: "Owner" });
    const principal = { kind: "session", userId: user.id, orgId: org.id, role: "owner", keyId: null } as const;
    const { key: apiKey } = await services.auth.createApiKey(principal, { name: "fuzz" });
    secrets.add(password).add(apiKey);
    const api = (method: string, url: string, body?: unknown) => json(method, url, apiKey, body);

    const viewerPassword = `pw-viewer-${randomBytes(12).toString("hex")}`;
    await api("POST", "/api/v2/users", { email: `viewer-${label}@fuzz.example`, role: "viewer" });
    const invitation = /inc_inv_\w+/.exec(mail.at(-1) ?? "")![0];
    const viewer = await json("POST", "/api/v2/auth/invitations/accept", "", { token: invitation, password: viewerPassword });
    secrets.add(viewerPassword);
    const session = await json("POST", "/api/v2/auth/login", "", { email, password });
    secrets.add(session.access_token);
    const spareKey = await api("POST", "/api/v2/keys", { name: "spare" });
    secrets.add(spareKey.key);
    const workspace = await api("POST", "/api/v2/workspaces", { name: "w" });
    const project = await api("POST", "/api/v2/projects", { name: "p", problem: LP });
    const dataset = await api("POST", `/api/v2/projects/${project.id}/datasets`, { name: "d", data: {} });
    const document = await api("POST", "/api/v2/documents", { name: "doc", model: { kind: "problem", problem: LP } });
    const webhookSecret = `whsec-${label}-${randomBytes(16).toString("hex")}`;
    secrets.add(webhookSecret);
    const signed = await api("POST", "/api/v2/triggers", {
      name: "signed",
      document_id: document.id,
      version_id: document.version_id,
      webhook_url: "http://127.0.0.1:9/hook",
      webhook_secret: webhookSecret,
    });
    const generated = await api("POST", "/api/v2/triggers", {
      name: "generated",
      document_id: document.id,
      version_id: document.version_id,
      webhook_url: "http://127.0.0.1:9/hook",
    });
    for (const t of [signed, generated]) for (const s of [t.trigger_secret, t.webhook_secret]) if (s) secrets.add(s);
    const run = await api("POST", `/api/v2/triggers/${signed.id}/run`);
    const execution = await api("POST", "/api/v2/solve/async", { problem: LP });
    const comparison = await api("POST", "/api/v2/solvers/compare", { solver_names: ["highs", "glpk"], problem: LP });
    const notifications = await api("GET", "/api/v2/notifications");
    return {
      orgId: org.id,
      ownerId: user.id,
      email,
      password,
      apiKey,
      ids: {
        user_id: [viewer.id],
        key_id: [spareKey.id],
        workspace_id: [workspace.id],
        project_id: [project.id],
        dataset_id: [dataset.id],
        document_id: [document.id],
        version_id: [document.version_id],
        trigger_id: [signed.id, generated.id],
        run_id: [run.run_id],
        execution_id: [execution.execution_id ?? execution.id],
        comparison_id: [comparison.comparison_id ?? comparison.id],
        batch_id: [],
        notification_id: (notifications.notifications ?? notifications.items ?? []).map((n: { id: string }) => n.id).slice(0, 2),
        model_id: [],
        session: [session.access_token],
      },
      triggerSecrets: { [signed.id]: signed.trigger_secret, [generated.id]: generated.trigger_secret },
    };
  }

  async function snapshot(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    let start: Record<string, unknown> | undefined;
    do {
      const page = await services.table.doc.send(new ScanCommand({ TableName: config.tableName, ExclusiveStartKey: start }));
      for (const item of page.Items ?? []) {
        if (isVolatile(String(item.pk))) continue;
        const kept = Object.fromEntries(Object.entries(item).filter(([k]) => !VOLATILE_ATTRIBUTES.has(k)));
        out.set(`${item.pk} ${item.sk}`, JSON.stringify(kept, Object.keys(kept).sort()));
      }
      start = page.LastEvaluatedKey;
    } while (start);
    out.set("blobs", String(countFiles(blobDir)));
    for (const [name, url] of Object.entries({ jobs: jobs.url, webhooks: hooks.url })) {
      const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["ApproximateNumberOfMessages"] }));
      out.set(`queue ${name}`, attrs.Attributes?.ApproximateNumberOfMessages ?? "?");
    }
    return out;
  }

  return {
    app,
    services,
    secrets,
    mail,
    capturedOutput: () => captured.join(""),
    call,
    seedOrganization,
    snapshot,
    async stop() {
      restoreOutput();
      await emulators.stop();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

function countFiles(dir: string): number {
  let n = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e);
    n += statSync(p).isDirectory() ? countFiles(p) : 1;
  }
  return n;
}
