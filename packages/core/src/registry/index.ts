export {
  serverJsonOf,
  templateFromServerJson,
  type DraftField,
  type ImportResult,
  type ServerJson,
  type TemplateDraft,
} from "./server-json";
export { PRESETS } from "./presets";
