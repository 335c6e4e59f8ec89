import { SendEmailCommand } from "@aws-sdk/client-sesv2";
import { describe, expect, it } from "vitest";
import { consoleMailbox, deployedMailbox, sesMailbox } from "../../../../../functions/core/auth/mailer.js";
import { createLogger } from "../../../../../functions/core/logger.js";

/** A logger whose lines the test reads (Powertools writes through its console). */
function capturingLogger() {
  const lines: { level: string; message: string; extra: unknown }[] = [];
  const logger = createLogger("mailer-test");
  for (const level of ["warn", "error"] as const) {
    logger[level] = ((message: string, extra?: unknown) => {
      lines.push({ level, message, extra });
    }) as never;
  }
  return { logger, lines };
}

describe("mailbox: console and SES transports", () => {
  it("SES sends one plain-text mail from the stage's sender to the user", async () => {
    const sent: SendEmailCommand[] = [];
    const client = { send: async (command: unknown) => (sent.push(command as SendEmailCommand), { MessageId: "m-1" }) };
    const { logger, lines } = capturingLogger();
    await sesMailbox({ from: "no-reply@example.com", logger, client: client as never })("ada@example.org", "Incumbent password reset", "token rst_abc");
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(SendEmailCommand);
    expect(sent[0]!.input).toEqual({
      FromEmailAddress: "no-reply@example.com",
      Destination: { ToAddresses: ["ada@example.org"] },
      Content: { Simple: { Subject: { Data: "Incumbent password reset", Charset: "UTF-8" }, Body: { Text: { Data: "token rst_abc", Charset: "UTF-8" } } } },
    });
    expect(lines).toEqual([]);
  });

  it("an SES failure is logged without the address or the token, and never thrown (the reset still answers 202)", async () => {
    const client = {
      send: async () => {
        throw Object.assign(new Error("Email address is not verified."), { name: "MessageRejected" });
      },
    };
    const { logger, lines } = capturingLogger();
    await expect(sesMailbox({ from: "no-reply@example.com", logger, client })("ada@example.org", "s", "token rst_secret")).resolves.toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe("error");
    expect(JSON.stringify(lines[0])).toContain("example.org");
    expect(JSON.stringify(lines[0])).not.toContain("ada@");
    expect(JSON.stringify(lines[0])).not.toContain("rst_secret");
  });

  it("a deployed function mails through SES only when MAIL_FROM_ADDRESS is set; otherwise it logs the token as not delivered", async () => {
    const { logger, lines } = capturingLogger();
    await deployedMailbox({ mailFromAddress: "", region: "eu-west-1", awsEndpointUrl: undefined }, logger)("ada@example.org", "s", "token rst_x");
    expect(lines).toEqual([expect.objectContaining({ level: "warn", message: expect.stringContaining("not delivered") })]);
    expect(JSON.stringify(lines)).not.toContain("rst_x");
  });

  it("the console transport prints the message for the local stack", () => {
    const printed: string[] = [];
    consoleMailbox((line) => printed.push(line))("ada@example.org", "Incumbent password reset", "token rst_1");
    expect(printed).toEqual(["[mail to ada@example.org] Incumbent password reset: token rst_1"]);
  });
});
