"use client";

import { needsMemberAction } from "@switchboard/core/status";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { LiveIndicator, useLiveUpdates } from "~/components/console/use-live-updates";
import { useTRPC } from "~/trpc/react";
import { MyServerCard } from "./my-server-card";
import { MyQuotas } from "./my-quotas";
import { MyTools } from "./my-tools";
import { LoadMore } from "~/components/ui/load-more";
import { QueryState, Skeletons } from "~/components/ui/query-state";

export type OAuthResult = { ok: true } | { ok: false; message: string } | null;

export function MyServersView({
  teamId,
  slug,
  isAdmin,
  oauthResult = null,
}: {
  teamId: string;
  slug: string;
  isAdmin: boolean;
  oauthResult?: OAuthResult;
}) {
  const trpc = useTRPC();
  const live = useLiveUpdates(teamId);
  const mine = useInfiniteQuery(
    trpc.instance.mine.infiniteQueryOptions({ teamId, limit: 25 }, { getNextPageParam: (last) => last.nextCursor }),
  );
  const cost = useQuery(trpc.instance.myCost.queryOptions({ teamId }));
  // Servers waiting for this member come first: they are why the member opened this page.
  const rows = [...(mine.data?.pages.flatMap((p) => p.items) ?? [])].sort(
    (a, b) => Number(needsMemberAction(b.status)) - Number(needsMemberAction(a.status)),
  );

  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1 style={{ margin: 0 }}>My servers</h1>
        <LiveIndicator status={live.status} />
      </div>
      {oauthResult?.ok === true && (
        <p className="card" role="status" data-testid="oauth-result">
          Authorized. Your server is connecting; its status below updates by itself.
        </p>
      )}
      {oauthResult?.ok === false && (
        <p className="card error" role="alert" data-testid="oauth-result">
          The authorization did not complete: {oauthResult.message}
        </p>
      )}
      <p className="muted">
        Your own instance of each server the team installed, with your personal settings.{" "}
        <Link href={`/t/${slug}/connect`}>Connect a client</Link> to use them.
      </p>

      <section
        className="card row"
        aria-label="Catalogue cost"
        data-testid="catalogue-cost"
        style={{ justifyContent: "space-around" }}
      >
        <QueryState query={cost} loading={<div className="skeleton" style={{ width: "100%" }} />}>
          {(data) => (
            <>
              <div>
                <div className="muted">Every tool your clients see (online servers)</div>
                <div
                  className="stat"
                  data-testid="cost-all"
                  data-view="member"
                  data-tools={data.allTools.toolCount}
                  data-tokens={data.allTools.tokens}
                >
                  {data.allTools.tokens.toLocaleString()} tokens
                </div>
                <div className="muted small">
                  {data.allTools.toolCount} tool{data.allTools.toolCount === 1 ? "" : "s"}
                </div>
              </div>
              <div>
                <div className="muted">Router mode</div>
                <div className="stat" data-testid="cost-router">
                  {data.routerMode.tokens.toLocaleString()} tokens
                </div>
                <div className="muted small">{data.routerMode.toolCount} meta-tools that search and call yours</div>
              </div>
            </>
          )}
        </QueryState>
      </section>

      <QueryState
        query={mine}
        loading={<Skeletons className="card stack" />}
        errorPrefix="Could not load your servers: "
        errorClassName="error card"
        isEmpty={() => rows.length === 0}
        empty={
          <div className="card empty">
            You have no servers yet. When an admin installs one, your instance appears here.
          </div>
        }
      >
        {() => rows.map((i) => <MyServerCard key={i.id} teamId={teamId} slug={slug} instance={i} isAdmin={isAdmin} />)}
      </QueryState>
      <LoadMore query={mine} />
      <MyQuotas teamId={teamId} />
      <MyTools teamId={teamId} total={cost.data?.allTools} />
    </div>
  );
}
