import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { startEmulators } from "../../bin/local/emulators.js";

/**
 * DynamoDB-API backends the store suite runs against: dynalite (the local stack's emulator) and
 * moto_server (Python moto: the real API's conditional and transactional semantics, plus SQS and ECS).
 */
export interface Backend {
  name: string;
  endpoint: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

export async function startDynaliteBackend(): Promise<Backend> {
  const emulators = await startEmulators();
  return { name: "dynalite", endpoint: emulators.dynamoEndpoint, stop: () => emulators.stop() };
}

/**
 * moto's server answers requests on threads without locking items, so two conditional writes to one
 * item can both pass their condition — which DynamoDB never allows. Served on one thread, moto applies
 * requests one at a time, as DynamoDB applies writes to an item. (Same app as `moto_server`, whose
 * command line has no switch for this.)
 */
const SINGLE_THREADED_MOTO = [
  "import sys",
  "from werkzeug.serving import run_simple",
  "from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app",
  "run_simple('127.0.0.1', int(sys.argv[1]), DomainDispatcherApplication(create_backend_app), threaded=False)",
].join("\n");

/**
 * moto's server as the single-threaded one — one request at a time, so DynamoDB's conditional writes
 * hold and SQS's receive is atomic (moto checks a message's visibility and marks it received in two
 * unlocked steps) — except that a long poll waiting for messages lets other requests run meanwhile, as
 * SQS does. Every request holds one lock; an SQS receive's wait releases it and takes it back.
 */
const LONG_POLLING_MOTO = [
  "import sys, threading",
  "from werkzeug.serving import run_simple",
  "from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app",
  "from moto.sqs import models as sqs",
  "serial = threading.RLock()",
  "app = DomainDispatcherApplication(create_backend_app)",
  "def serialized(environ, start_response):",
  "    with serial:",
  "        return list(app(environ, start_response))",
  "wait = sqs.Queue.wait_for_messages",
  "def unlocked_wait(self, timeout):",
  "    serial.release()",
  "    try:",
  "        return wait(self, timeout)",
  "    finally:",
  "        serial.acquire()",
  "sqs.Queue.wait_for_messages = unlocked_wait",
  "run_simple('127.0.0.1', int(sys.argv[1]), serialized, threaded=True)",
].join("\n");

function motoPython(): string | null {
  for (const python of ["python3", "python"]) {
    try {
      execFileSync(python, ["-c", "import moto.moto_server.werkzeug_app, werkzeug.serving"], { stdio: "ignore" });
      return python;
    } catch {
      // not this one
    }
  }
  return null;
}

/**
 * Starts moto's server on a free port and waits until it answers: single-threaded when its Python is at
 * hand (DynamoDB's conditional writes then hold), or with `longPolls` one request at a time except SQS
 * long polls waiting for messages (LONG_POLLING_MOTO); `environment` reaches the server (e.g.
 * INITIAL_NO_AUTH_ACTION_COUNT).
 */
export async function startMotoBackend(options: { longPolls?: boolean; environment?: Record<string, string> } = {}): Promise<Backend> {
  const port = await freePort();
  const python = motoPython();
  const env = { ...process.env, ...options.environment };
  if (options.longPolls && !python) throw new Error("long polls need moto's Python (the server is started from it)");
  const child: ChildProcess = python
    ? spawn(python, ["-c", options.longPolls ? LONG_POLLING_MOTO : SINGLE_THREADED_MOTO, String(port)], { stdio: "ignore", env })
    : spawn("moto_server", ["-H", "127.0.0.1", "-p", String(port)], { stdio: "ignore", env });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const res = await fetch(`${endpoint}/moto-api/`);
      if (res.status < 500) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error("moto_server did not start");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name: "moto_server",
    endpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
