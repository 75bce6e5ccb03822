export * from "./names";
export * from "./payloads";
export * from "./ids";
export * from "./health-schedule";
export * from "./bridge";
export * from "./maintenance";
export * from "./redis-url";
