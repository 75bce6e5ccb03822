export * from "./settings";
export * from "./command";
