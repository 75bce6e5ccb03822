export * from "./namespace";
export * from "./catalogue-index";
