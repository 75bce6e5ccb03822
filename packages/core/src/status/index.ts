export * from "./statuses";
export * from "./transitions";
export * from "./admission";
export * from "./labels";
export * from "./attention";
export * from "./groups";
export * from "./worker-loss";
