export * from "./settings";
export * from "./command";
export * from "./loopback";
