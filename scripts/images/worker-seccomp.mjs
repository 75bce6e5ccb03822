// Writes the seccomp profile the worker's container runs under: the containers project's default profile (Podman's,
// read from stdin, e.g. /usr/share/containers/seccomp.json) with sethostname and setdomainname allowed. The default
// allows them only to a container holding CAP_SYS_ADMIN; bubblewrap calls sethostname in the sandbox's own UTS
// namespace, which its own user namespace owns, so they change nothing outside the sandbox. Everything else stays.
//
//   node scripts/images/worker-seccomp.mjs < /usr/share/containers/seccomp.json > worker-seccomp.json
//   podman run --security-opt seccomp=worker-seccomp.json --security-opt 'unmask=/proc/*' ... switchboard-worker
import { readFileSync } from "node:fs";

const ALLOWED = ["sethostname", "setdomainname"];
const profile = JSON.parse(readFileSync(0, "utf8"));
// The default's rule that refuses them (EPERM) to a container without CAP_SYS_ADMIN goes for these two calls.
for (const rule of profile.syscalls) {
  if (rule.action !== "SCMP_ACT_ALLOW") rule.names = rule.names.filter((name) => !ALLOWED.includes(name));
}
profile.syscalls = profile.syscalls.filter((rule) => rule.names.length > 0);
profile.syscalls.push({ names: ALLOWED, action: "SCMP_ACT_ALLOW", args: [] });
process.stdout.write(`${JSON.stringify(profile, null, 2)}\n`);
