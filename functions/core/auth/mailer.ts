import type { SESv2Client } from "@aws-sdk/client-sesv2";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";

/**
 * Where mail to users goes (password-reset tokens): the port the auth routes hand a message to. Two
 * transports: the console (the local stack; the tests capture instead) and SES (AWS, from the stage's
 * MAIL_FROM_ADDRESS). A transport failure is logged, never thrown: the reset request answers 202
 * whatever happens, so nobody learns which addresses exist.
 */
export type Mailbox = (to: string, subject: string, body: string) => void | Promise<void>;

export const consoleMailbox =
  (print: (line: string) => void = console.log): Mailbox =>
  (to, subject, body) =>
    print(`[mail to ${to}] ${subject}: ${body}`);

export interface SesMailboxOptions {
  from: string;
  logger: Logger;
  /** The SES client; created (and its module loaded) on the first mail when not given. */
  client?: Pick<SESv2Client, "send">;
  region?: string;
  endpoint?: string;
}

export function sesMailbox(options: SesMailboxOptions): Mailbox {
  let client = options.client;
  return async (to, subject, body) => {
    try {
      // Loaded on first use: the API's cold start does not pay for a client most invocations never need.
      const ses = await import("@aws-sdk/client-sesv2");
      client ??= new ses.SESv2Client({ ...(options.region ? { region: options.region } : {}), ...(options.endpoint ? { endpoint: options.endpoint } : {}) });
      await client.send(
        new ses.SendEmailCommand({
          FromEmailAddress: options.from,
          Destination: { ToAddresses: [to] },
          Content: { Simple: { Subject: { Data: subject, Charset: "UTF-8" }, Body: { Text: { Data: body, Charset: "UTF-8" } } } },
        }),
      );
    } catch (error) {
      options.logger.error("sending mail through SES failed", { error, to_domain: to.split("@")[1] });
    }
  };
}

/** The mailbox of a deployed function: SES when the stage names a sender, otherwise none (logged). */
export function deployedMailbox(config: Pick<Config, "mailFromAddress" | "region" | "awsEndpointUrl">, logger: Logger): Mailbox {
  if (config.mailFromAddress) return sesMailbox({ from: config.mailFromAddress, logger, region: config.region, endpoint: config.awsEndpointUrl });
  return (to) => logger.warn("no mail transport configured (MAIL_FROM_ADDRESS); a password-reset token was not delivered", { to_domain: to.split("@")[1] });
}
