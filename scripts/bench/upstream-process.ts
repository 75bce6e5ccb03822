/** The echo upstream as its own process, so the bench's clients and the upstream do not share one event loop. */
import { startEchoUpstream } from "./upstream";

const upstream = await startEchoUpstream();
process.stdout.write(`${upstream.url}\n`);
process.on("SIGTERM", () => void upstream.close().then(() => process.exit(0)));
