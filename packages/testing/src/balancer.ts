import { createConnection, createServer, type AddressInfo, type Server, type Socket } from "node:net";

/**
 * A TCP load balancer on 127.0.0.1 in front of several gateway processes, as one in production would be: each new
 * connection goes to the next backend in turn, and to the one after it when that one refuses (a killed process).
 * Connections already open stay with their backend and are cut when it dies; the client's next connection lands
 * on a live one.
 */
export class Balancer {
  private next = 0;
  private readonly sockets = new Set<Socket>();
  /** Connections each backend port accepted through us. */
  readonly accepted = new Map<number, number>();

  private constructor(
    private readonly server: Server,
    private readonly backends: () => readonly number[],
  ) {}

  static async start(backends: () => readonly number[]): Promise<Balancer> {
    let balancer: Balancer | undefined;
    const server = createServer((client) => balancer!.accept(client));
    balancer = new Balancer(server, backends);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return balancer;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private track(s: Socket) {
    this.sockets.add(s);
    s.on("close", () => this.sockets.delete(s));
    s.on("error", () => {}); // its peer is destroyed with it below
  }

  private accept(client: Socket) {
    this.track(client);
    client.pause();
    const ports = this.backends();
    const tryBackend = (left: number) => {
      if (left === 0 || client.destroyed) return void client.destroy();
      const port = ports[this.next++ % ports.length]!;
      const upstream = createConnection({ host: "127.0.0.1", port });
      upstream.once("error", () => {
        if (!upstream.readyState.startsWith("open")) tryBackend(left - 1);
      });
      upstream.once("connect", () => {
        this.accepted.set(port, (this.accepted.get(port) ?? 0) + 1);
        this.track(upstream);
        client.pipe(upstream);
        upstream.pipe(client);
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
        client.resume();
      });
    };
    tryBackend(ports.length);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
