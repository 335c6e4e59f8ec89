import { spawn, type ChildProcess } from "node:child_process";
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

/** Starts `moto_server` on a free port and waits until it answers. */
export async function startMotoBackend(): Promise<Backend> {
  const port = await freePort();
  const child: ChildProcess = spawn("moto_server", ["-H", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
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
