import net from "node:net";

/**
 * A TCP proxy in front of an emulator, so a test can take the service away and give it back: `cut()`
 * closes the listening port (new connections are refused) and resets every open connection, as a
 * stopped emulator would; `restore()` listens again on the same port. The emulator behind keeps its
 * state, so recovery is observable (a stopped in-memory emulator would come back empty).
 */
export class FaultProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private port = 0;

  constructor(private readonly upstream: { host: string; port: number }) {}

  static forEndpoint(endpoint: string): FaultProxy {
    const url = new URL(endpoint);
    return new FaultProxy({ host: url.hostname, port: Number(url.port) });
  }

  /** The endpoint clients use instead of the emulator's. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    await this.listen(0);
    return this;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restore(): Promise<void> {
    if (!this.server) await this.listen(this.port);
  }

  stop(): Promise<void> {
    return this.cut();
  }

  private async listen(port: number): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.upstream.port, this.upstream.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }
}
