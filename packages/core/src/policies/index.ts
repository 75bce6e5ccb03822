export * from "./classify-error";
export * from "./retry";
export * from "./backoff";
export * from "./reconnect";
export * from "./health";
export * from "./crash";
export * from "./idle";
export * from "./health-schedule";
