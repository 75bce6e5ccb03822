import { catalogueTotals, viewTools, type MemberInstance } from "@switchboard/core/proxy";
import type { Db } from "@switchboard/db/client";
import { loadMemberCatalogue } from "@switchboard/db/queries/member-catalogue";

/**
 * A member's instances with their stored catalogues, the admins' governance and the member's hidden tools, as the
 * route serves them: what every tool count and token cost in the console is computed from (core
 * `catalogue-numbers`), so a number reads the same on every page.
 */
export async function memberInstances(
  db: Db,
  where: { teamId: string; userId: string; installationSlug?: string },
): Promise<MemberInstance[]> {
  return (await loadMemberCatalogue(db, where)) as unknown as MemberInstance[];
}

/** What one member's clients see, per instance and over the servers listed now. */
export async function memberCatalogueNumbers(db: Db, where: { teamId: string; userId: string }) {
  const rows = await memberInstances(db, where);
  const { servers, total } = catalogueTotals(rows, "member");
  return { rows, servers: new Map(servers.map((s) => [s.instanceId, s.numbers])), total };
}

/** One instance's catalogue as its installation serves it (after governance) and as its server offers it. */
export async function instanceCatalogueViews(
  db: Db,
  instance: { teamId: string; userId: string; installationSlug: string },
) {
  const [row] = await memberInstances(db, instance);
  return {
    served: row ? viewTools(row, "installation") : [],
    offered: row ? viewTools(row, "upstream") : [],
  };
}
