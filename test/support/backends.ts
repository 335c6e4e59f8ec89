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

/** Starts moto's server on a free port (single-threaded when its Python is at hand) and waits until it answers. */
export async function startMotoBackend(): Promise<Backend> {
  const port = await freePort();
  const python = motoPython();
  const child: ChildProcess = python
    ? spawn(python, ["-c", SINGLE_THREADED_MOTO, String(port)], { stdio: "ignore" })
    : spawn("moto_server", ["-H", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
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
