import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Upstream2026 } from "@switchboard/testing/upstream-2026";
import { describe, expect, it } from "vitest";

/**
 * The 2026-07-28 upstream fixture itself: the route's tests count its open `subscriptions/listen` streams
 * (`openListens`) to prove the route closes the ones it replaced, so that count must fall when a client goes away.
 */

/** A full garbage collection now: whatever tells the server that its client left must not be collectable. */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

describe("the 2026-07-28 upstream fixture", () => {
  it("ends a listen stream when its client disconnects, also after a garbage collection", async () => {
    const upstream = await Upstream2026.start();
    const client = new ClientV2(
      { name: "fixture-listen", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    try {
      await client.connect(new TransportV2(new URL(upstream.url)));
      await client.listen({ toolsListChanged: true });
      expect(upstream.openListens).toBe(1);
      collectGarbage();
      // Closing the client aborts its HTTP request: the server sees the stream's socket close.
      await client.close();
      await expect.poll(() => upstream.openListens).toBe(0);
    } finally {
      await client.close();
      await upstream.stop();
    }
  });
});
