import { describe, expect, it } from "vitest";
import { boundDetail, DETAIL_MAX, humanizeError, SUMMARY_MAX } from "../src/errors";
import { NO_WORKER_MESSAGE, WORKER_LOST_MESSAGE, WORKER_NOT_ANSWERING_MESSAGE } from "../src/status";

const PAGE = `<!DOCTYPE html><html><head><title>Sign in &middot; Corp SSO</title><style>body{color:red}</style>
<script>window.x = "${"y".repeat(5000)}"</script></head><body><h1>Please sign in</h1>${"<div>filler</div>".repeat(3000)}</body></html>`;

describe("humanizeError", () => {
  it("reads the SDK's 'Error POSTing to endpoint' with a page's text as 'not MCP', keeping the text as detail", () => {
    const text = `Streamable HTTP error: Error POSTing to endpoint: Sign in to Corp Portal Welcome ${"back to the portal ".repeat(20)}`;
    const h = humanizeError(new Error(text));
    expect(h.summary).toBe("The server did not answer as an MCP server: check the URL's path and that it serves MCP.");
    expect(h.summary.length).toBeLessThanOrEqual(160);
    expect(h.detail).toContain("Sign in to Corp Portal");
  });

  it("turns an HTML answer into one sentence about the URL's path, with the page's text as bounded detail", () => {
    const h = humanizeError(`Streamable HTTP error: Error POSTing to endpoint: ${PAGE}`);
    expect(h.summary).toMatch(/^The server answered with a web page, not MCP .*check the URL's path\.$/);
    expect(h.summary.length).toBeLessThanOrEqual(SUMMARY_MAX);
    expect(h.summary).toContain("Corp SSO");
    expect(h.detail).not.toBeNull();
    expect(h.detail!.length).toBeLessThanOrEqual(DETAIL_MAX);
    expect(h.detail).not.toMatch(/<[a-z!/]/i);
    expect(h.detail).not.toContain("window.x");
    expect(h.detail).toContain("Please sign in");
  });

  it("names the HTTP status of an HTML answer when the error carries it", () => {
    const err = Object.assign(
      new Error(`Streamable HTTP error: Error POSTing to endpoint: <html><body>nope</body></html>`),
      { code: 404 },
    );
    expect(humanizeError(err).summary).toBe(
      "The server answered with a web page, not MCP (HTTP 404): check the URL's path.",
    );
  });

  it("reads a 200 answer with an HTML content type as a web page", () => {
    expect(humanizeError("Streamable HTTP error: Unexpected content type: text/html; charset=utf-8").summary).toMatch(
      /^The server answered with a web page/,
    );
  });

  it("says which command was not found for spawn ENOENT", () => {
    expect(humanizeError("spawn mcp-foo ENOENT").summary).toBe("Command not found: mcp-foo.");
  });

  it("explains refused connections, unknown hosts and timeouts in words", () => {
    expect(humanizeError("fetch failed (ECONNREFUSED)").summary).toMatch(
      /^Nothing answers at this address \(connection refused\)/,
    );
    expect(humanizeError("getaddrinfo ENOTFOUND nope.invalid").summary).toBe(
      "The host name could not be found: check the URL.",
    );
    expect(humanizeError("MCP error -32001: Request timed out").summary).toBe("The server did not answer in time.");
  });

  it("maps HTTP statuses to what the admin should check", () => {
    expect(humanizeError("Error POSTing to endpoint (HTTP 404): Cannot POST /wrong").summary).toMatch(
      /HTTP 404\): check the URL's path/,
    );
    expect(
      humanizeError(Object.assign(new Error("Streamable HTTP error: Error POSTing to endpoint: denied"), { code: 401 }))
        .summary,
    ).toMatch(/HTTP 401/);
  });

  it("keeps the first line of readable text and bounds it to one line", () => {
    const h = humanizeError(`Tool failed because the quota is exhausted.\n${"at frame (x.js:1:1)\n".repeat(500)}`);
    expect(h.summary).toBe("Tool failed because the quota is exhausted.");
    expect(h.detail!.length).toBeLessThanOrEqual(DETAIL_MAX);
    expect(humanizeError("x".repeat(10_000)).summary.length).toBeLessThanOrEqual(SUMMARY_MAX);
  });

  it("gives a readable sentence its own text back with no detail, and is idempotent", () => {
    expect(humanizeError("Fill in your API key in My servers.")).toEqual({
      summary: "Fill in your API key in My servers.",
      detail: null,
    });
    for (const raw of [
      `x ${PAGE}`,
      "spawn mcp-foo ENOENT",
      "connect ECONNREFUSED 127.0.0.1:9",
      "HTTP 503",
      "a\u202eb\u0000c",
    ]) {
      const once = humanizeError(raw).summary;
      expect(humanizeError(once).summary).toBe(once);
    }
  });

  it("removes control and bidirectional characters from summary and detail", () => {
    const h = humanizeError("bad\u0000 thing\u202e happened\u0007 here and it is long enough.\nmore");
    // eslint-disable-next-line no-control-regex -- asserting no control character survives
    expect(h.summary).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(boundDetail("a\u0000b\u202ec\nd")).toBe("a b c\nd");
  });

  it("keeps the worker-loss sentences as written, so the console and the client read exactly them", () => {
    for (const sentence of [WORKER_LOST_MESSAGE, NO_WORKER_MESSAGE, WORKER_NOT_ANSWERING_MESSAGE])
      expect(humanizeError(sentence)).toEqual({ summary: sentence, detail: null });
  });
});
