"use client";

import Link from "next/link";
import { useParams } from "next/navigation";

/**
 * A stale link inside a team (a removed server, an id from another team): the team's navigation stays, and the
 * way back leads to what the link most likely meant. Another team's resource reads exactly like a missing one.
 */
export default function TeamNotFound() {
  const { slug } = useParams<{ slug: string }>();
  return (
    <div className="card stack" data-testid="team-not-found">
      <h1 style={{ margin: 0 }}>Not found</h1>
      <p className="muted" style={{ margin: 0 }}>
        This link points to something that does not exist in this team (it may have been removed), or you do not have
        access to it.
      </p>
      <div className="row">
        <Link href={`/t/${slug}/servers`}>Back to the installed servers</Link>
        <Link href={`/t/${slug}`}>Go to the overview</Link>
      </div>
    </div>
  );
}
