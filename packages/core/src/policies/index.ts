export * from "./classify-error";
export * from "./retry";
export * from "./retry-safety";
export * from "./reconnect";
export * from "./health";
export * from "./crash";
export * from "./idle";
