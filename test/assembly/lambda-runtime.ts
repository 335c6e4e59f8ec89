import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { ACCOUNT, REGION } from "./moto-resources.js";

/**
 * A Lambda function as the runtime runs it, close enough to catch packaging faults: a fresh Node
 * process whose working directory is a copy of the bundle's asset alone (nothing above it to resolve
 * a missing file or package from), with the function's environment and nothing of this machine's but
 * PATH, importing the handler module as the Node.js runtime does (`index.handler` → index.mjs / .js /
 * .cjs) and calling it once per event with a context.
 */
const HOST = `
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const [handlerSpec, functionName, timeoutSeconds, memory] = process.argv.slice(1);
const dot = handlerSpec.lastIndexOf(".");
const base = handlerSpec.slice(0, dot), exportName = handlerSpec.slice(dot + 1);
const file = [".mjs", ".js", ".cjs"].map((ext) => path.resolve(base + ext)).find((f) => existsSync(f));
let handler;
try {
  if (!file) throw new Error("Runtime.ImportModuleError: no module " + base);
  const mod = await import(pathToFileURL(file).href);
  handler = mod[exportName] ?? mod.default?.[exportName];
  if (typeof handler !== "function") throw new Error("Runtime.HandlerNotFound: " + handlerSpec);
  process.send({ type: "ready" });
} catch (error) {
  process.send({ type: "init-error", error: { name: error.name, message: error.message, stack: error.stack } });
  process.exit(1);
}
process.on("message", async ({ id, event }) => {
  const deadline = Date.now() + Number(timeoutSeconds) * 1000;
  // As the runtime does per invocation under active tracing: the trace header X-Ray's SDK reads.
  const hex = (n) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
  process.env._X_AMZN_TRACE_ID = "Root=1-" + Math.floor(Date.now() / 1000).toString(16) + "-" + hex(24) + ";Parent=" + hex(16) + ";Sampled=1";
  const context = {
    awsRequestId: id, functionName, functionVersion: "$LATEST", memoryLimitInMB: memory,
    invokedFunctionArn: "arn:aws:lambda:${REGION}:${ACCOUNT}:function:" + functionName,
    logGroupName: "/aws/lambda/" + functionName, logStreamName: "assembly", callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    const result = await handler(event, context);
    process.send({ id, result: result === undefined ? null : result });
  } catch (error) {
    process.send({ id, error: { name: error?.name, message: error?.message, stack: error?.stack } });
  }
});
`;

export interface InvokeResult {
  result?: any;
  error?: { name: string; message: string; stack?: string };
}

export class LambdaProcess {
  private child: ChildProcess | null = null;
  private output = "";
  private readonly pending = new Map<string, (r: InvokeResult) => void>();

  constructor(
    readonly name: string,
    private readonly options: { taskRoot: string; handler: string; environment: Record<string, string>; timeoutSeconds: number; memoryMb: number },
  ) {}

  /** Cold start: resolves once the module is imported (rejects with the import's error and output). */
  async start(): Promise<void> {
    const o = this.options;
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      TZ: ":UTC",
      LANG: "en_US.UTF-8",
      LAMBDA_TASK_ROOT: o.taskRoot,
      AWS_LAMBDA_FUNCTION_NAME: this.name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(o.memoryMb),
      AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
      AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
      ...o.environment,
    };
    const child = spawn(process.execPath, ["--input-type=module", "-e", HOST, o.handler, this.name, String(o.timeoutSeconds), String(o.memoryMb)], {
      cwd: o.taskRoot,
      env,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    this.child = child;
    child.stdout!.on("data", (d) => (this.output += d));
    child.stderr!.on("data", (d) => (this.output += d));
    await new Promise<void>((resolve, reject) => {
      child.on("message", (m: { type?: string; id?: string; error?: InvokeResult["error"] } & InvokeResult) => {
        if (m.type === "ready") return resolve();
        if (m.type === "init-error") return reject(new Error(`${this.name} failed to initialise: ${m.error?.stack ?? m.error?.message}\n${this.output}`));
        const done = m.id ? this.pending.get(m.id) : undefined;
        if (done) {
          this.pending.delete(m.id!);
          done(m);
        }
      });
      child.on("exit", (code) => {
        reject(new Error(`${this.name} exited (${code}) during init:\n${this.output}`));
        for (const done of this.pending.values()) done({ error: { name: "Runtime.ExitError", message: `exited with ${code}` } });
        this.pending.clear();
      });
    });
  }

  invoke(event: unknown): Promise<InvokeResult> {
    const id = randomUUID();
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child!.send({ id, event });
    });
  }

  /** What the function logged (shown when a test fails). */
  logs(): string {
    return this.output;
  }

  stop(): void {
    if (this.child && this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}

/**
 * API Gateway's HTTP API in front of a function (payload format 2.0): each HTTP request becomes a
 * version 2.0 event, and the function's result becomes the response.
 */
export class HttpApiGateway {
  private server: http.Server | null = null;
  url = "";

  constructor(private readonly fn: LambdaProcess) {}

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        void this.forward(req, Buffer.concat(chunks)).then(
          (out) => {
            res.writeHead(out.status, out.headers);
            res.end(out.body);
          },
          (error: Error) => {
            res.writeHead(500, { "content-type": "application/json" });
            res.end(JSON.stringify({ message: "Internal Server Error", detail: error.message }));
          },
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async forward(req: http.IncomingMessage, body: Buffer): Promise<{ status: number; headers: http.OutgoingHttpHeaders; body: Buffer }> {
    const url = new URL(req.url ?? "/", "http://gateway");
    const headers: Record<string, string> = {};
    let cookies: string[] | undefined;
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      if (name === "cookie") cookies = String(value).split("; ");
      else headers[name] = Array.isArray(value) ? value.join(",") : value;
    }
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
    const contentType = headers["content-type"] ?? "";
    // API Gateway passes text as is and base64-encodes anything else (multipart uploads included).
    const textual = /^(application\/(json|x-www-form-urlencoded)|text\/)/.test(contentType);
    const now = new Date();
    const event = {
      version: "2.0",
      routeKey: "$default",
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      ...(cookies ? { cookies } : {}),
      headers,
      ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
      requestContext: {
        accountId: ACCOUNT,
        apiId: "assembly",
        domainName: headers.host ?? "assembly.execute-api.localhost",
        domainPrefix: "assembly",
        http: {
          method: req.method,
          path: url.pathname,
          protocol: "HTTP/1.1",
          sourceIp: req.socket.remoteAddress ?? "127.0.0.1",
          userAgent: headers["user-agent"] ?? "",
        },
        requestId: randomUUID(),
        routeKey: "$default",
        stage: "$default",
        time: now.toUTCString(),
        timeEpoch: now.getTime(),
      },
      ...(body.length ? { body: textual ? body.toString("utf8") : body.toString("base64") } : {}),
      isBase64Encoded: body.length > 0 && !textual,
    };
    const { result, error } = await this.fn.invoke(event);
    if (error) return { status: 500, headers: { "content-type": "application/json" }, body: Buffer.from(JSON.stringify({ message: "Internal Server Error" })) };
    const out = result as { statusCode: number; headers?: Record<string, string>; body?: string; isBase64Encoded?: boolean; cookies?: string[] };
    const responseHeaders: http.OutgoingHttpHeaders = { ...(out.headers ?? {}) };
    if (out.cookies?.length) responseHeaders["set-cookie"] = out.cookies;
    return { status: out.statusCode, headers: responseHeaders, body: Buffer.from(out.body ?? "", out.isBase64Encoded ? "base64" : "utf8") };
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/**
 * Lambda's SQS event source for one mapping: receives a batch, invokes with the SQS event shape, and
 * deletes what the function did not report in `batchItemFailures` (all of it kept when it threw).
 * Short polls with a pause, for a single-threaded moto.
 */
export class SqsEventSource {
  private running = false;
  private loop: Promise<void> | null = null;
  invocations = 0;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queue: { url: string; arn: string },
    private readonly fn: LambdaProcess,
    private readonly options: { batchSize: number; reportsFailures: boolean },
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.poll();
  }

  private async poll(): Promise<void> {
    while (this.running) {
      const out = await this.sqs
        .send(
          new ReceiveMessageCommand({
            QueueUrl: this.queue.url,
            MaxNumberOfMessages: Math.min(10, this.options.batchSize),
            WaitTimeSeconds: 0,
            MessageSystemAttributeNames: ["All"],
            MessageAttributeNames: ["All"],
          }),
        )
        .catch(() => ({ Messages: undefined }));
      const messages = out.Messages ?? [];
      if (messages.length === 0) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      const Records = messages.map((m) => ({
        messageId: m.MessageId,
        receiptHandle: m.ReceiptHandle,
        body: m.Body,
        attributes: m.Attributes ?? {},
        messageAttributes: m.MessageAttributes ?? {},
        md5OfBody: m.MD5OfBody,
        eventSource: "aws:sqs",
        eventSourceARN: this.queue.arn,
        awsRegion: REGION,
      }));
      this.invocations++;
      const { result, error } = await this.fn.invoke({ Records });
      if (error) continue; // the whole batch comes back after its visibility timeout
      const failed = new Set<string>(
        this.options.reportsFailures ? ((result?.batchItemFailures ?? []) as { itemIdentifier: string }[]).map((f) => f.itemIdentifier) : [],
      );
      const done = messages.filter((m) => !failed.has(m.MessageId!));
      if (done.length) {
        await this.sqs
          .send(new DeleteMessageBatchCommand({ QueueUrl: this.queue.url, Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })) }))
          .catch(() => undefined);
      }
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/** EventBridge's scheduled event, as a rule's target receives it. */
export function scheduledEvent(ruleName: string): Record<string, unknown> {
  return {
    version: "0",
    id: randomUUID(),
    "detail-type": "Scheduled Event",
    source: "aws.events",
    account: ACCOUNT,
    time: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    region: REGION,
    resources: [`arn:aws:events:${REGION}:${ACCOUNT}:rule/${ruleName}`],
    detail: {},
  };
}
