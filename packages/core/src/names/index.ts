export * from "./namespace";
export * from "./catalogue-index";
export * from "./app-ui";
