import { startLocalStack, type LocalStack, type LocalStackOptions } from "../../bin/local/local-stack.js";
import { Api } from "./api.js";

export { Api, type ApiResponse } from "./api.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

/**
 * A local stack for one test file: real emulators, the real app on a free port. Tests talk HTTP to
 * `stack.url` with the bootstrap key, and reach `stack.services` only to arrange or inspect state.
 */
export interface Mail {
  to: string;
  subject: string;
  body: string;
}

/** The organization owner every test stack bootstraps (its e-mail is what the console says it is signed in as). */
export const TEST_OWNER = { email: "owner@example.test", password: "correct horse battery" } as const;

export async function startTestStack(options: LocalStackOptions = {}): Promise<LocalStack & { apiKey: string; api: Api; mail: Mail[] }> {
  const mail: Mail[] = [];
  const stack = await startLocalStack({
    port: 0,
    mailbox: (to, subject, body) => {
      mail.push({ to, subject, body });
    },
    ...options,
    env: { METRICS_FLUSH_SECONDS: "3600", ...options.env },
    bootstrap: { ...TEST_OWNER, ...options.bootstrap },
  });
  return Object.assign(stack, { apiKey: stack.bootstrap.apiKey!, api: new Api(stack.url, stack.bootstrap.apiKey!), mail });
}
