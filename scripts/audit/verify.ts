/**
 * `npm run audit:verify`: walks every audit chain (each team's and the deployment's) from its anchor and prints,
 * for each, how many records hold, how many retention pruned, and the first broken link if any. Exits 1 when a
 * chain is broken. `--team <id>` checks one team; `--json` prints one JSON object per chain. Reads DATABASE_URL.
 */
import "dotenv/config";
import { AUDIT_BREAK_MESSAGES } from "@switchboard/core/audit";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listAuditChains, verifyAudit } from "@switchboard/db/queries/audit";

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const json = args.includes("--json");
  const teamIndex = args.indexOf("--team");
  const onlyTeam = teamIndex >= 0 ? args[teamIndex + 1] : undefined;

  const db = getDb();
  const chains = onlyTeam ? [`team:${onlyTeam}`] : await listAuditChains(db);
  let broken = 0;
  for (const chain of chains) {
    const teamId = chain === "deployment" ? null : chain.slice("team:".length);
    const result = await verifyAudit(db, teamId);
    if (result.broken) broken++;
    if (json) {
      console.log(JSON.stringify(result));
    } else if (result.broken) {
      const b = result.broken;
      console.log(
        `BROKEN ${chain}: record ${b.id} (#${b.seq}, ${b.action}, ${b.createdAt.toISOString()}): ${AUDIT_BREAK_MESSAGES[b.reason]}; ${result.checked} record(s) before it hold`,
      );
    } else {
      console.log(
        `ok     ${chain}: ${result.checked} record(s) hold${result.pruned ? `, ${result.pruned} pruned behind the anchor` : ""}`,
      );
    }
  }
  if (!json) console.log(`${chains.length} chain(s) checked, ${broken} broken`);
  await disconnectDb();
  return broken ? 1 : 0;
}

void main().then((code) => process.exit(code));
