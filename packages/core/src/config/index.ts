export * from "./types";
export * from "./field-values";
export * from "./resolve-launch";
export * from "./validate";
export * from "./secrets";
export * from "./redact";
export * from "./field-changes";
export * from "./definition-changes";
