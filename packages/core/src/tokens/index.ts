export * from "./count-tokens";
