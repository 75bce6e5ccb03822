import type { TemplateDraftValue } from "../catalogue/template-form";
import type { TeamSettings } from "./wizard-configure";
import type { WizardServer } from "./wizard-server";

/**
 * The install wizard's state in one reducer (install-wizard.tsx renders it): the step, where the server comes
 * from, the template or definition being installed, the team settings, the optional OAuth client and, once
 * installed, the installation whose owner connects their account.
 */

export type Source = "preset" | "catalogue" | "import" | "custom";
export type Step = "template" | "define" | "configure" | "oauth" | "confirm" | "connect";

export const SOURCES: { id: Source; label: string }[] = [
  { id: "preset", label: "A preset" },
  { id: "catalogue", label: "Your team's catalogue" },
  { id: "import", label: "Import (server.json or registry)" },
  { id: "custom", label: "Custom" },
];

export const STEP_LABEL: Record<Step, string> = {
  template: "Source",
  define: "Definition",
  configure: "Team settings",
  oauth: "OAuth client",
  confirm: "Confirm",
  connect: "Connect your account",
};

export interface WizardState {
  step: Step;
  source: Source | null;
  templateId: string;
  server: WizardServer | null;
  /** A server being defined (preset, import, custom) before it is checked; `key` remounts its form. */
  draft: { value: TemplateDraftValue; notes: string[]; key: number } | null;
  settings: TeamSettings;
  oauthClientId: string;
  oauthSecret: string;
  installed: { id: string; name: string } | null;
}

export const INITIAL_WIZARD: WizardState = {
  step: "template",
  source: null,
  templateId: "",
  server: null,
  draft: null,
  settings: { name: "", slug: "", values: {}, requestLogging: true },
  oauthClientId: "",
  oauthSecret: "",
  installed: null,
};

export type WizardAction =
  | { type: "go"; step: Step }
  | { type: "source"; source: Source }
  /** A catalogue template picked (from the list or a preset already installed). */
  | { type: "choose"; templateId: string; server: WizardServer }
  | { type: "unchoose" }
  /** A definition to check; `key` is the time it arrived. */
  | { type: "define"; value: TemplateDraftValue; notes: string[]; key: number }
  | { type: "defined"; value: TemplateDraftValue; server: WizardServer }
  | { type: "undefine" }
  | { type: "settings"; settings: TeamSettings; step: Step }
  | { type: "oauthClient"; clientId?: string; secret?: string }
  | { type: "installed"; installation: { id: string; name: string } };

/** Takes `server` as the one to install: its name and slug; the values only when they still apply. */
function using(state: WizardState, server: WizardServer, keepValues: boolean): WizardState {
  return {
    ...state,
    server,
    settings: {
      name: server.name,
      slug: server.slug,
      values: keepValues ? state.settings.values : {},
      requestLogging: state.settings.requestLogging,
    },
    ...(keepValues ? {} : { oauthClientId: "", oauthSecret: "" }),
  };
}

export function wizardReducer(state: WizardState, action: WizardAction): WizardState {
  switch (action.type) {
    case "go":
      return { ...state, step: action.step };
    case "source":
      return { ...state, source: action.source };
    case "choose":
      return using({ ...state, templateId: action.templateId, draft: null }, action.server, false);
    case "unchoose":
      return { ...state, templateId: "", server: null };
    case "define":
      return {
        ...state,
        draft: { value: action.value, notes: action.notes, key: action.key },
        server: null,
        step: "define",
      };
    case "defined":
      return {
        ...using(
          { ...state, draft: state.draft && { ...state.draft, value: action.value } },
          action.server,
          state.server !== null,
        ),
        step: "configure",
      };
    case "undefine":
      return { ...state, draft: null, server: null, step: "template" };
    case "settings":
      return { ...state, settings: action.settings, step: action.step };
    case "oauthClient":
      return {
        ...state,
        ...(action.clientId !== undefined ? { oauthClientId: action.clientId } : {}),
        ...(action.secret !== undefined ? { oauthSecret: action.secret } : {}),
      };
    case "installed":
      return { ...state, installed: action.installation, step: "connect" };
  }
}
