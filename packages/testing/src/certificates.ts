import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A certificate authority made for one test run and a server certificate it signed (openssl, RSA 2048, one
 * day), written into `dir` as `ca.pem`, `server.pem` and `server.key`: what a TLS-only Redis or PostgreSQL
 * serves, and what a client trusts through NODE_EXTRA_CA_CERTS or `sslrootcert`, as an operator would.
 */
export async function serverCertificate(
  dir: string,
  name: { dns: string } | { ip: string },
): Promise<{ ca: string; cert: string; key: string }> {
  const f = (file: string) => path.join(dir, file);
  const openssl = (...args: string[]) => run("openssl", args, { cwd: dir });
  const days = ["-days", "1"];
  await openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    ...days,
    "-subj",
    "/CN=Switchboard test CA",
    "-keyout",
    f("ca.key"),
    "-out",
    f("ca.pem"),
  );
  const cn = "dns" in name ? name.dns : name.ip;
  await openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    `/CN=${cn}`,
    "-keyout",
    f("server.key"),
    "-out",
    f("server.csr"),
  );
  const san = "dns" in name ? `DNS:${name.dns}` : `IP:${name.ip}`;
  await run("sh", ["-c", `printf 'subjectAltName=${san}\\n' > ${f("ext.cnf")}`]);
  await openssl(
    "x509",
    "-req",
    "-in",
    f("server.csr"),
    "-CA",
    f("ca.pem"),
    "-CAkey",
    f("ca.key"),
    "-CAcreateserial",
    ...days,
    "-extfile",
    f("ext.cnf"),
    "-out",
    f("server.pem"),
  );
  return { ca: f("ca.pem"), cert: f("server.pem"), key: f("server.key") };
}
