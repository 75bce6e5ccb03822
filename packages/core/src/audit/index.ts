export * from "./chain";
export * from "./mask";
