export * from "./statuses";
export * from "./transitions";
export * from "./admission";
export * from "./labels";
export * from "./groups";
