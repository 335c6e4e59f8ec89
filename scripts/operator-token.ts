/**
 * Makes an instance operator's token (the one credential that grants credits): prints the token, to
 * keep where operators keep secrets, and its SHA-256, the setting the instance is given
 * (OPERATOR_TOKEN_SHA256). The instance never holds the token itself.
 *
 *   npx tsx scripts/operator-token.ts
 */
import { generateSecret, sha256Hex } from "../functions/core/auth/secrets.js";

const token = generateSecret("op");
process.stdout.write(`operator token (keep it secret; shown once):\n  ${token}\n`);
process.stdout.write(`setting for the instance:\n  OPERATOR_TOKEN_SHA256=${sha256Hex(token)}\n`);
