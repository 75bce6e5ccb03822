import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closedPathMessage, closedToOthers } from "../src/sandbox";

const base = mkdtempSync(path.join(os.tmpdir(), "sb-paths-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("read-only paths a sandbox user must reach", () => {
  it("names the first directory on the way that other users cannot pass", () => {
    const closed = path.join(base, "closed");
    const modules = path.join(closed, "project", "node_modules");
    mkdirSync(modules, { recursive: true });
    chmodSync(base, 0o755);
    chmodSync(closed, 0o700);
    expect(closedToOthers(modules)).toBe(closed);
    expect(closedPathMessage(modules, closed)).toContain(`chmod o+x ${closed}`);
  });

  it("finds nothing to fix once every directory on the way lets others pass, and skips missing paths", () => {
    const open = path.join(base, "open", "node_modules");
    mkdirSync(open, { recursive: true });
    chmodSync(base, 0o755);
    chmodSync(path.join(base, "open"), 0o711);
    expect(closedToOthers(open)).toBeUndefined();
    expect(closedToOthers(path.join(base, "missing", "node_modules"))).toBeUndefined();
  });
});
