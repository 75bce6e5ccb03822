// Exit 0 when PostgreSQL (DATABASE_URL's server) and Redis (REDIS_URL) both answer; otherwise print which one
// does not and exit 1. With --create-db, also creates DATABASE_URL's database when it does not exist.
import net from "node:net";
import pg from "pg";

const databaseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/switchboard";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

function tcp(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: Number(port), timeout: 2000 });
    socket.once("connect", () => {
      socket.end();
      resolve(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(false));
  });
}

async function postgres() {
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.slice(1));
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    if (process.argv.includes("--create-db")) {
      const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [database]);
      if (!rowCount) {
        await client.query(`create database "${database.replaceAll('"', '""')}"`);
        console.log(`created database ${database}`);
      }
    }
    return null;
  } catch (err) {
    return `PostgreSQL at ${url.host} is not reachable (${err.code ?? err.message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

async function redis() {
  const url = new URL(redisUrl);
  return (await tcp(url.hostname, url.port || 6379)) ? null : `Redis at ${url.host} is not reachable`;
}

const problems = (await Promise.all([postgres(), redis()])).filter(Boolean);
for (const p of problems) console.error(p);
process.exit(problems.length ? 1 : 0);
