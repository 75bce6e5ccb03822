import net from "node:net";

/**
 * A 127.0.0.1 port the OS just handed out (and took back): free unless something grabs it in between. For a
 * child process that only takes its port as an argument (the console, test servers).
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
