export * from "./allow-list";
export * from "./stdio-command";
export * from "./signup";
