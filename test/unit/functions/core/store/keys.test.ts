import { describe, expect, it } from "vitest";
import { keys } from "../../../../../functions/core/store/keys.js";

describe("table keys", () => {
  it("are byte for byte the keys stored before keys.ts (existing items, IAM and tests depend on them)", () => {
    expect(keys.organization("o")).toEqual({ pk: "ORG#o", sk: "ORG" });
    expect(keys.workspace({ orgId: "o", id: "ws_1" })).toEqual({ pk: "ORG#o", sk: "WS#ws_1" });
    expect(keys.project({ orgId: "o", id: "prj_1" })).toEqual({ pk: "ORG#o", sk: "PRJ#prj_1" });
    expect(keys.projectVersion({ projectId: "prj_1", id: "ver_1" })).toEqual({ pk: "PRJ#prj_1", sk: "VER#ver_1" });
    expect(keys.dataset({ projectId: "prj_1", id: "dst_1" })).toEqual({ pk: "PRJ#prj_1", sk: "DST#dst_1" });
    expect(keys.document({ orgId: "o", id: "doc_1" })).toEqual({ pk: "ORG#o", sk: "DOC#doc_1" });
    expect(keys.documentVersion({ documentId: "doc_1", id: "ver_1" })).toEqual({ pk: "DOC#doc_1", sk: "VER#ver_1" });
    expect(keys.execution({ orgId: "o", id: "exe_1" })).toEqual({ pk: "ORG#o", sk: "EXE#exe_1" });
    expect(keys.comparison({ orgId: "o", id: "cmp_1" })).toEqual({ pk: "ORG#o", sk: "CMP#cmp_1" });
    expect(keys.matrix({ orgId: "o", id: "cmb_1" })).toEqual({ pk: "ORG#o", sk: "CMB#cmb_1" });
    expect(keys.matrix.projectIndex("prj_1", "cmb_1")).toEqual({ gsi1pk: "PRJCMB#prj_1", gsi1sk: "cmb_1" });
    expect(keys.trigger({ orgId: "o", id: "trg_1" })).toEqual({ pk: "ORG#o", sk: "TRG#trg_1" });
    expect(keys.trigger.idIndex("trg_1")).toEqual({ gsi1pk: "TRG#trg_1", gsi1sk: "TRIGGER" });
    expect(keys.triggerRun({ triggerId: "trg_1", id: "run_0abc" })).toEqual({ pk: "TRG#trg_1", sk: "RUN#0abc" });
    expect(keys.triggerRun({ triggerId: "trg_1", id: "trun_0abc" })).toEqual({ pk: "TRG#trg_1", sk: "RUN#0abc" });
    expect(keys.credit({ orgId: "o", id: "crd_1" })).toEqual({ pk: "ORG#o", sk: "CREDIT#crd_1" });
    expect(keys.runSlot({ orgId: "o", slot: 3 })).toEqual({ pk: "ORG#o", sk: "RUNSLOT#0003" });
    expect(keys.parked({ orgId: "o", id: "0#t#execution#exe_1" })).toEqual({ pk: "ORG#o", sk: "PARKED#0#t#execution#exe_1" });
    expect(keys.parked.orgIndex("o", "0#t")).toEqual({ gsi1pk: "PARKED#o", gsi1sk: "0#t" });
    expect(keys.user("usr_1")).toEqual({ pk: "USER#usr_1", sk: "USER" });
    expect(keys.user.orgIndex("o", "usr_1")).toEqual({ gsi1pk: "ORG#o", gsi1sk: "USER#usr_1" });
    expect(keys.membership({ userId: "usr_1", id: "ws_1" })).toEqual({ pk: "USER#usr_1", sk: "MEMBER#ws_1" });
    expect(keys.apiKey({ userId: "usr_1", id: "key_1" })).toEqual({ pk: "USER#usr_1", sk: "APIKEY#key_1" });
    expect(keys.keySlot({ userId: "usr_1", slot: 7 })).toEqual({ pk: "USER#usr_1", sk: "KEYSLOT#0007" });
    expect(keys.keyName({ userId: "usr_1", id: "ci" })).toEqual({ pk: "USER#usr_1", sk: "KEYNAME#ci" });
    expect(keys.notification({ userId: "usr_1", id: "ntf_1" })).toEqual({ pk: "USER#usr_1", sk: "NTF#ntf_1" });
    expect(keys.notification.unreadIndex("usr_1", "ntf_1")).toEqual({ gsi1pk: "UNREAD#usr_1", gsi1sk: "ntf_1" });
    expect(keys.emailClaim("a@b.c")).toEqual({ pk: "EMAIL#a@b.c", sk: "EMAIL" });
    expect(keys.apiKeyLookup("ab12")).toEqual({ pk: "KEY#ab12", sk: "KEY" });
    expect(keys.passwordReset("ab12")).toEqual({ pk: "RESET#ab12", sk: "RESET" });
    expect(keys.enrolment("ab12")).toEqual({ pk: "ENROL#ab12", sk: "ENROL" });
    expect(keys.progressChunk.key("o", "exe_1", 12)).toEqual({ pk: "PRG#o#exe_1", sk: "CHUNK#000012" });
    expect(keys.limit.key(keys.limit.scope.org("o"), 86400, 20000)).toEqual({ pk: "LIMIT#ORG#o", sk: "P86400#20000" });
    expect(keys.active.index("execution", "o#exe_1")).toEqual({ gsi1pk: "ACTIVE", gsi1sk: "execution#o#exe_1" });
    expect(keys.webhookOutbox.index("2026-01-01T00:00:00.000Z", "trg_1", "run_1")).toEqual({
      gsi1pk: "WEBHOOK_OUTBOX",
      gsi1sk: "2026-01-01T00:00:00.000Z#trg_1#run_1",
    });
    expect(keys.scheduleRegistry("trg_1")).toEqual({ pk: "SCHEDULES", sk: "TRG#trg_1" });
    expect(keys.workerHeartbeat("w1")).toEqual({ pk: "WORKERS", sk: "WORKER#w1" });
    expect([keys.solverInventory, keys.metricsTotals, keys.warmUp]).toEqual([
      { pk: "SOLVERS", sk: "INVENTORY" },
      { pk: "METRICS", sk: "TOTALS" },
      { pk: "WARMUP", sk: "WARMUP" },
    ]);
    expect(keys.recentRequests).toEqual({ partition: "METRICS#RECENT", prefix: "req_" });
    expect([
      keys.limit.scope.clientIp("1.2.3.4", "auth"),
      keys.limit.scope.email("a@b.c", "reset"),
      keys.limit.scope.signInFrom("a@b.c", "1.2.3.4"),
      keys.limit.scope.trigger("trg_1"),
      keys.limit.scope.quota("o"),
      keys.limit.scope.priority("o"),
    ]).toEqual(["IP#1.2.3.4#auth", "EMAIL#a@b.c#reset", "EMAIL#a@b.c#IP#1.2.3.4#login", "TRG#trg_1", "QUOTA#o", "PRIORITY#o"]);
  });

  it("round-trip through their parsers, which refuse another entity's key", () => {
    const inOrg = [keys.workspace, keys.project, keys.document, keys.execution, keys.comparison, keys.matrix, keys.trigger, keys.credit, keys.parked];
    for (const entity of inOrg) {
      const ids = { orgId: "org_x#y", id: "id_1#2" };
      expect(entity.parse(entity(ids)), entity.prefix).toEqual(ids);
      expect(keys.org.parse(entity(ids).pk)).toBe("org_x#y");
    }
    expect(keys.execution.parse(keys.comparison({ orgId: "o", id: "cmp_1" }))).toBeNull();
    expect(keys.comparison.parse(keys.matrix({ orgId: "o", id: "cmb_1" }))).toBeNull();
    expect(keys.org.parse("USER#usr_1")).toBeNull();
    for (const entity of [keys.membership, keys.apiKey, keys.keyName, keys.notification]) {
      expect(entity.parse(entity({ userId: "usr_1", id: "x" }))).toEqual({ userId: "usr_1", id: "x" });
    }
    expect(keys.projectVersion.parse(keys.projectVersion({ projectId: "prj_1", id: "ver_1" }))).toEqual({ projectId: "prj_1", id: "ver_1" });
    expect(keys.dataset.parse(keys.projectVersion({ projectId: "prj_1", id: "ver_1" }))).toBeNull();
    expect(keys.documentVersion.parse(keys.documentVersion({ documentId: "doc_1", id: "ver_1" }))).toEqual({ documentId: "doc_1", id: "ver_1" });
    for (const entity of [keys.organization, keys.user, keys.emailClaim, keys.apiKeyLookup, keys.passwordReset, keys.enrolment]) {
      expect(entity.parse(entity("v#1"))).toBe("v#1");
    }
    expect(keys.organization.parse(keys.workspace({ orgId: "o", id: "ws_1" }))).toBeNull();
  });

  it("never let one begins_with listing of a partition read another entity's items", () => {
    // Sort-key prefixes listed with begins_with, and fixed sort keys, per partition.
    const partitions: Record<string, { prefixes: string[]; fixed: string[] }> = {
      "ORG#<org>": {
        prefixes: [
          keys.workspace.prefix,
          keys.project.prefix,
          keys.document.prefix,
          keys.execution.prefix,
          keys.comparison.prefix,
          keys.matrix.prefix,
          keys.trigger.prefix,
          keys.credit.prefix,
          keys.runSlot.prefix,
          keys.parked.prefix,
        ],
        fixed: [keys.organization.sk],
      },
      "USER#<usr>": {
        prefixes: [keys.membership.prefix, keys.apiKey.prefix, keys.keySlot.prefix, keys.keyName.prefix, keys.notification.prefix],
        fixed: [keys.user.sk],
      },
      "PRJ#<prj>": { prefixes: [keys.projectVersion.prefix, keys.dataset.prefix], fixed: [] },
      "DOC#<doc>": { prefixes: [keys.documentVersion.prefix], fixed: [] },
      "TRG#<trg>": { prefixes: [keys.triggerRun.prefix], fixed: [] },
    };
    for (const [partition, { prefixes, fixed }] of Object.entries(partitions)) {
      expect(new Set(prefixes).size, partition).toBe(prefixes.length);
      for (const a of prefixes) {
        expect(a.endsWith("#"), a).toBe(true);
        for (const b of prefixes) if (a !== b) expect(b.startsWith(a), `${partition}: ${a} is a prefix of ${b}`).toBe(false);
        for (const sk of fixed) expect(sk.startsWith(a), `${partition}: ${sk} begins with ${a}`).toBe(false);
      }
    }
    // The partitions themselves are told apart by their own prefixes.
    const partitionPrefixes = [
      keys.org.partition(""),
      keys.user.partition(""),
      keys.projectVersion.partition(""),
      keys.documentVersion.partition(""),
      keys.triggerRun.partition(""),
    ];
    expect(new Set(partitionPrefixes).size).toBe(partitionPrefixes.length);
  });
});
