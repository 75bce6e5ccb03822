export * from "./schema";
export * from "./defaults";
export * from "./engine";
