import { z } from "zod";
import { SCHEMA_NAMES } from "../schema-names.js";

/** An API key as the API shows it: never the key itself nor its hash. */
export const ApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe("leading characters of the key, for recognising it"),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  status: z.enum(["active", "expired", "revoked"]),
});
SCHEMA_NAMES.add(ApiKeySchema, { id: "ApiKey" });
export type ApiKeyView = z.infer<typeof ApiKeySchema>;
