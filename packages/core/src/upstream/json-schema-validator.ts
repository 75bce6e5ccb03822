import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";

/**
 * The SDK's JSON Schema validator, made when a schema is first checked. The SDK's Server and Client each build an
 * Ajv instance in their constructor (about 0.7 ms of CPU, most of what building a member's proxy costs), while a
 * server checks a schema only when it elicits and a client only for tools that declare an output schema. The
 * 2026-07-28 route builds a proxy per request, so it pays only for what a request uses. One instance per Server
 * or Client, as the SDK does: Ajv keeps every schema it compiled, so a shared one would grow with each.
 */
export class LazyJsonSchemaValidator implements jsonSchemaValidator {
  private ajv: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.ajv ??= new AjvJsonSchemaValidator();
    return this.ajv.getValidator<T>(schema);
  }
}
