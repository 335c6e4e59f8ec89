import { describe, expect, it } from "vitest";
import { isTimeZone, localToUtc, nextFireTime, parseScheduleExpression } from "../../../../../functions/core/triggers/schedule-expression.js";

const at = (iso: string) => Date.parse(iso);
const next = (expression: string, timezone: string, afterIso: string, anchorIso = afterIso) => {
  const fire = nextFireTime(parseScheduleExpression(expression), { timezone, afterMs: at(afterIso), anchorMs: at(anchorIso) });
  return fire === null ? null : new Date(fire).toISOString();
};

describe("schedule expressions (EventBridge Scheduler syntax)", () => {
  it.each([
    ["rate(0 minutes)", /at least 1/],
    ["rate(1 minutes)", /singular/],
    ["rate(5 minute)", /plural/],
    ["rate(5 weeks)", /unit/],
    ["cron(0 12 * * * *)", /exactly one/],
    ["cron(0 12 ? * ? *)", /exactly one/],
    ["cron(0 12 * *)", /six fields/],
    ["cron(60 12 * * ? *)", /minutes value "60"/],
    ["cron(0 12 ? * FOO *)", /day-of-week value "FOO"/],
    ["cron(0 12 ? * 6#6 *)", /week number/],
    ["at(2026-02-30T10:00:00)", /not a calendar time/],
    ["at(2026-02-03 10:00)", /yyyy-mm-ddThh:mm:ss/],
    ["every(5 minutes)", /rate\(\.\.\.\), cron\(\.\.\.\) or at\(\.\.\.\)/],
  ])("refuses %s with a reason", (expression, reason) => {
    expect(() => parseScheduleExpression(expression)).toThrow(reason);
  });

  it("a rate fires one period after its anchor, then every period", () => {
    expect(next("rate(1 minute)", "UTC", "2026-11-23T10:00:00.000Z")).toBe("2026-11-23T10:01:00.000Z");
    expect(next("rate(5 minutes)", "UTC", "2026-11-23T10:07:00.000Z", "2026-11-23T10:00:00.000Z")).toBe("2026-11-23T10:10:00.000Z");
    expect(next("rate(2 hours)", "UTC", "2026-11-23T12:00:00.000Z", "2026-11-23T10:00:00.000Z")).toBe("2026-11-23T14:00:00.000Z");
  });

  it("cron reads wall-clock time in the schedule's time zone", () => {
    // 08:00 in Amsterdam is 07:00Z in winter (CET) and 06:00Z in summer (CEST).
    expect(next("cron(0 8 * * ? *)", "Europe/Amsterdam", "2026-11-23T07:30:00.000Z")).toBe("2026-11-24T07:00:00.000Z");
    expect(next("cron(0 8 * * ? *)", "Europe/Amsterdam", "2026-07-01T05:00:00.000Z")).toBe("2026-07-01T06:00:00.000Z");
    expect(next("cron(15 10 ? * MON-FRI *)", "America/New_York", "2026-11-21T00:00:00.000Z")).toBe("2026-11-23T15:15:00.000Z");
  });

  it("cron steps, lists, names, L, W and # pick the right days", () => {
    expect(next("cron(0/15 * * * ? *)", "UTC", "2026-11-23T10:16:00.000Z")).toBe("2026-11-23T10:30:00.000Z");
    expect(next("cron(0 9 L * ? *)", "UTC", "2026-02-10T00:00:00.000Z")).toBe("2026-02-28T09:00:00.000Z");
    expect(next("cron(0 9 ? * 6L *)", "UTC", "2026-11-01T00:00:00.000Z")).toBe("2026-11-27T09:00:00.000Z"); // last Friday
    expect(next("cron(0 9 ? * MON#1 *)", "UTC", "2026-11-03T00:00:00.000Z")).toBe("2026-12-07T09:00:00.000Z");
    expect(next("cron(0 9 15W * ? *)", "UTC", "2026-11-01T00:00:00.000Z")).toBe("2026-11-16T09:00:00.000Z"); // the 15th is a Sunday
    expect(next("cron(0 9 1 JAN,JUL ? *)", "UTC", "2026-02-01T00:00:00.000Z")).toBe("2026-07-01T09:00:00.000Z");
    expect(next("cron(0 9 1 1 ? 2025)", "UTC", "2026-02-01T00:00:00.000Z")).toBeNull();
  });

  it("at fires once, in its time zone, and never after", () => {
    expect(next("at(2026-12-01T09:00:00)", "Asia/Tokyo", "2026-11-23T00:00:00.000Z")).toBe("2026-12-01T00:00:00.000Z");
    expect(next("at(2026-12-01T09:00:00)", "Asia/Tokyo", "2026-12-01T00:00:00.000Z")).toBeNull();
  });

  it("a wall time skipped by daylight saving moves forward by the jump; a repeated one is its first instant", () => {
    const local = (hour: number, minute: number, day: number, month: number) => ({ year: 2026, month, day, hour, minute, second: 0 });
    expect(new Date(localToUtc(local(2, 30, 29, 3), "Europe/Amsterdam")).toISOString()).toBe("2026-03-29T01:30:00.000Z");
    expect(new Date(localToUtc(local(2, 30, 25, 10), "Europe/Amsterdam")).toISOString()).toBe("2026-10-25T00:30:00.000Z");
  });

  it("knows time zone names", () => {
    expect(isTimeZone("Europe/Amsterdam")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
  });
});
