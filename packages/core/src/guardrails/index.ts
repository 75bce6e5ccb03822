export * from "./rules";
export { luhnValid, ibanValid, findPersonalData, type Match } from "./personal-data";
export { findCredentials } from "./credentials";
export { dataStrings, jsonPath, scanForGuardrails, type GuardrailScan } from "./scan";
export {
  guardrailGate,
  type GuardedCall,
  type GuardrailGate,
  type GuardrailReport,
  type GuardrailSource,
} from "./gate";
