// The schemas of the structured-output checks, as zod 4 and Pydantic 2
// write them, and the json fixture model's reply, which is valid for both.
import { z } from "zod";

/** PERSON_JSON is what the json model writes, token by token. */
export const PERSON_JSON = '{"name":"Ada","age":36,"email":null,"role":{"kind":"admin","level":3},"tags":["math","code"],"code":"AB-12"}';

/** person is PERSON_JSON's value. */
export const person = JSON.parse(PERSON_JSON);

const role = z.object({ kind: z.enum(["admin", "user"]), level: z.number().int().min(1).max(5) });

/**
 * personSchema has what zod writes for everyday models: bounds (minimum,
 * maximum, minLength, maxLength, minItems, maxItems), a pattern, a format,
 * a nullable field and a union (anyOf), additionalProperties false.
 */
export const personSchema = z.object({
  name: z.string().min(1).max(40),
  age: z.number().int().min(0).max(150),
  email: z.string().email().nullable(),
  role: z.union([role, z.object({ kind: z.literal("guest") })]),
  tags: z.array(z.string().max(10)).min(1).max(5),
  code: z.string().regex(/^[A-Z]{2}-[0-9]{2}$/),
});

/**
 * pydanticPerson is the JSON Schema Pydantic 2 writes for the same model
 * (Person.model_json_schema()): titles, $defs and $ref, anyOf with null
 * for Optional.
 */
export const pydanticPerson = {
  $defs: {
    Role: {
      properties: {
        kind: { enum: ["admin", "user"], title: "Kind", type: "string" },
        level: { maximum: 5, minimum: 1, title: "Level", type: "integer" },
      },
      required: ["kind", "level"],
      title: "Role",
      type: "object",
    },
  },
  properties: {
    name: { maxLength: 40, minLength: 1, title: "Name", type: "string" },
    age: { maximum: 150, minimum: 0, title: "Age", type: "integer" },
    email: { anyOf: [{ format: "email", type: "string" }, { type: "null" }], title: "Email" },
    role: { $ref: "#/$defs/Role" },
    tags: { items: { maxLength: 10, type: "string" }, maxItems: 5, minItems: 1, title: "Tags", type: "array" },
    code: { pattern: "^[A-Z]{2}-[0-9]{2}$", title: "Code", type: "string" },
  },
  required: ["name", "age", "email", "role", "tags", "code"],
  title: "Person",
  type: "object",
  additionalProperties: false,
};
