/**
 * @incumbent/client: the Incumbent API typed from its OpenAPI document. Runs wherever fetch, Web
 * Streams and Web Crypto do (Node 20, browsers); reading files from disk is in `@incumbent/client/node`.
 */
export {
  createIncumbentClient,
  IncumbentClient,
  recommendationQueryOf,
  unwrap,
  type ClientOptions,
  type FireOptions,
  type IncumbentApi,
  type ProblemFile,
  type WaitOptions,
} from "./client.js";
export { IncumbentError, type ErrorBody } from "./errors.js";
export { readEventStream, StreamEndedError, type StreamOptions } from "./events.js";
export * from "./types.js";
export { SIGNATURE_HEADER, verifyWebhookSignature, webhookSignature, type WebhookSignatureCheck } from "./webhook.js";
