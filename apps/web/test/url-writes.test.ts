import { describe, expect, it } from "vitest";
import { UrlWrites } from "~/components/ui/url-writes";

const DEFAULTS = { view: "servers", status: "", q: "", sort: "name", page: "1", tab: "instances", tools: "" };

describe("URL state writes in quick succession", () => {
  it("build on the writes the router has not committed yet, so none loses another's parameter", () => {
    const writes = new UrlWrites();
    writes.observe("/t/acme?");
    expect(writes.write("/t/acme?", { sort: "problems", page: "1" }, DEFAULTS)).toBe("/t/acme?sort=problems");
    // The debounced search lands before the router shows the sort.
    expect(writes.write("/t/acme?", { q: "Server 07", page: "1" }, DEFAULTS)).toBe("/t/acme?sort=problems&q=Server+07");
    // The router commits the first write only: the second is still in flight, a third builds on it.
    writes.observe("/t/acme?sort=problems");
    expect(writes.write("/t/acme?sort=problems", { status: "error" }, DEFAULTS)).toBe(
      "/t/acme?sort=problems&q=Server+07&status=error",
    );
    writes.observe("/t/acme?sort=problems&q=Server+07&status=error");
    expect(writes.write("/t/acme?sort=problems&q=Server+07&status=error", { q: "" }, DEFAULTS)).toBe(
      "/t/acme?sort=problems&status=error",
    );
  });

  it("serve every component of the page: a tab written in one and a filter in another both stay", () => {
    const writes = new UrlWrites();
    const here = "/t/acme/installations/ins_1?";
    writes.observe(here);
    writes.write(here, { tab: "tools" }, DEFAULTS);
    expect(writes.write(here, { tools: "echo" }, DEFAULTS)).toBe("/t/acme/installations/ins_1?tab=tools&tools=echo");
  });

  it("take a write from a stale render on top of what the router last showed", () => {
    const writes = new UrlWrites();
    writes.observe("/t/acme?view=members");
    writes.observe("/t/acme?view=members&sort=problems");
    // A debounced write scheduled before the sort landed still carries the older address.
    expect(writes.write("/t/acme?view=members", { q: "ada" }, DEFAULTS)).toBe(
      "/t/acme?view=members&sort=problems&q=ada",
    );
  });

  it("drop pending writes when the address changes by other means (a link, Back) or the page changes", () => {
    const writes = new UrlWrites();
    writes.observe("/t/acme?");
    writes.write("/t/acme?", { sort: "problems" }, DEFAULTS);
    writes.observe("/t/acme?view=matrix");
    expect(writes.write("/t/acme?view=matrix", { page: "2" }, DEFAULTS)).toBe("/t/acme?view=matrix&page=2");
    writes.observe("/t/acme/servers?");
    expect(writes.write("/t/acme/servers?", { q: "x" }, DEFAULTS)).toBe("/t/acme/servers?q=x");
  });

  it("leave a value equal to its default out of the address", () => {
    const writes = new UrlWrites();
    writes.observe("/t/acme?view=members&page=3");
    expect(writes.write("/t/acme?view=members&page=3", { view: "servers", page: "1" }, DEFAULTS)).toBe("/t/acme");
  });
});
