export * from "./latency";
export * from "./rollup";
