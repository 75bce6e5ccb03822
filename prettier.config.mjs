export { default } from "./tooling/prettier.config.js";
