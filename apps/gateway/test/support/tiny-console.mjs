// A stand-in for the Next child in gateway tests: answers every request with its pid, on 127.0.0.1:$PORT.
import { createServer } from "node:http";

if (process.argv[2] === "fail") {
  console.error("tiny console: failing at start on purpose");
  process.exit(3);
}
const server = createServer((_req, res) => res.end(JSON.stringify({ pid: process.pid })));
server.listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
