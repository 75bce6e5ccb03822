import { describe, expect, it } from "vitest";
import {
  INITIAL_WIZARD,
  wizardReducer,
  type WizardAction,
  type WizardState,
} from "~/app/t/[slug]/servers/wizard-state";
import type { WizardServer } from "~/app/t/[slug]/servers/wizard-server";

const server = (slug: string, oauth = false) =>
  ({ id: null, name: slug.toUpperCase(), slug, oauth }) as unknown as WizardServer;
const run = (...actions: WizardAction[]): WizardState => actions.reduce(wizardReducer, INITIAL_WIZARD);
const draft = { slug: "docs", name: "Docs" } as never;

describe("the install wizard's state", () => {
  it("takes a picked template's name and slug, and forgets the values and OAuth client of another one", () => {
    const state = run(
      { type: "choose", templateId: "t1", server: server("one", true) },
      {
        type: "settings",
        settings: { name: "One", slug: "one", values: { TOKEN: "x" }, requestLogging: false },
        step: "oauth",
      },
      { type: "oauthClient", clientId: "client", secret: "secret" },
      { type: "choose", templateId: "t2", server: server("two") },
    );
    expect(state).toMatchObject({ templateId: "t2", oauthClientId: "", oauthSecret: "" });
    // The name and slug follow the template; request logging is the admin's choice and stays.
    expect(state.settings).toEqual({ name: "TWO", slug: "two", values: {}, requestLogging: false });
  });

  it("keeps the values when a definition is checked again after going back, and starts empty the first time", () => {
    const first = run(
      { type: "define", value: draft, notes: ["imported"], key: 1 },
      { type: "defined", value: draft, server: server("docs") },
    );
    expect(first).toMatchObject({ step: "configure", draft: { notes: ["imported"], key: 1 } });
    const again = run(
      { type: "define", value: draft, notes: [], key: 1 },
      { type: "defined", value: draft, server: server("docs") },
      {
        type: "settings",
        settings: { name: "Docs", slug: "docs", values: { URL: "u" }, requestLogging: true },
        step: "define",
      },
      { type: "defined", value: draft, server: server("docs-2") },
    );
    expect(again.settings).toEqual({ name: "DOCS-2", slug: "docs-2", values: { URL: "u" }, requestLogging: true });
  });

  it("leaves a definition for the first step, and ends on connecting the admin's account once installed", () => {
    expect(run({ type: "define", value: draft, notes: [], key: 1 }, { type: "undefine" })).toMatchObject({
      step: "template",
      draft: null,
      server: null,
    });
    expect(run({ type: "installed", installation: { id: "i1", name: "Docs" } })).toMatchObject({
      step: "connect",
      installed: { id: "i1", name: "Docs" },
    });
  });
});
