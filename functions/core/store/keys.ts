/**
 * Every key of the single table, declared once (in the manner of ElectroDB: an entity's keys are
 * built here and nowhere else; stores call these builders and never spell a prefix).
 *
 * The values are the table's data: changing one orphans every stored item under the old one, so each
 * builder produces byte for byte what the stores wrote before this module existed.
 *
 * | entity              | pk                      | sk                                   | gsi1pk / gsi1sk                          | read by (access patterns)                                      |
 * | ------------------- | ----------------------- | ------------------------------------ | ---------------------------------------- | -------------------------------------------------------------- |
 * | organization        | ORG#<org>               | ORG                                  |                                          | get by id (credit balance lives here)                          |
 * | workspace           | ORG#<org>               | WS#<ws>                              |                                          | get by id; list the organization's                             |
 * | project             | ORG#<org>               | PRJ#<prj>                            |                                          | get by id; list the organization's, newest first               |
 * | project version     | PRJ#<prj>               | VER#<ver>                            |                                          | get; list the project's, newest first; delete the partition    |
 * | dataset             | PRJ#<prj>               | DST#<dst>                            |                                          | get; list the project's, newest first                          |
 * | document            | ORG#<org>               | DOC#<doc>                            |                                          | get by id; list the organization's, newest first               |
 * | document version    | DOC#<doc>               | VER#<ver>                            |                                          | get; newest (last key); list newest first                      |
 * | execution           | ORG#<org>               | EXE#<exe>                            | ACTIVE / execution#<org>#<exe> (waiting)| get by id; list newest first; the sweeper's ACTIVE listing     |
 * | comparison          | ORG#<org>               | CMP#<cmp>                            | ACTIVE / comparison#<org>#<cmp> (…)     | get by id; list and count newest first; the ACTIVE listing     |
 * | matrix              | ORG#<org>               | CMB#<cmb>                            | PRJCMB#<prj> / <cmb>                     | get by id; list the organization's; list a project's (gsi1)    |
 * | trigger             | ORG#<org>               | TRG#<trg>                            | TRG#<trg> / TRIGGER                      | get; list and count; find by id alone (a fire has no org)      |
 * | trigger run         | TRG#<trg>               | RUN#<time-sortable part of run id>   | ACTIVE …, or WEBHOOK_OUTBOX / <ended>#…  | get; list newest first (run_ and trun_ interleave); count      |
 * | credit entry        | ORG#<org>               | CREDIT#<time-sortable>               |                                          | the organization's history, newest first, paged                |
 * | running slot        | ORG#<org>               | RUNSLOT#<nnnn>                       |                                          | the organization's slots, in slot order                        |
 * | parked job          | ORG#<org>               | PARKED#<band>#<at>#<type>#<id>       | PARKED#<org> / <band>#<at>#<type>#<id>   | the organization's parked jobs, high band then oldest (gsi1)   |
 * | user                | USER#<usr>              | USER                                 | ORG#<org> / USER#<usr>                   | get by id; list the organization's users (gsi1)                |
 * | membership          | USER#<usr>              | MEMBER#<ws>                          |                                          | the user's role in a workspace                                 |
 * | API key record      | USER#<usr>              | APIKEY#<key>                         |                                          | list the user's; get; revoke                                   |
 * | API key slot        | USER#<usr>              | KEYSLOT#<nnnn>                       |                                          | the live-key cap: one slot per live key (conditional put)      |
 * | API key name        | USER#<usr>              | KEYNAME#<name>                       |                                          | a live key's name, unique per user                             |
 * | notification        | USER#<usr>              | NTF#<ntf>                            | UNREAD#<usr> / <ntf> while unread        | list newest first; unread listing and count (sparse gsi1)      |
 * | e-mail claim        | EMAIL#<email>           | EMAIL                                |                                          | unique address → user id (sign-in lookup)                      |
 * | API key lookup      | KEY#<sha256>            | KEY                                  |                                          | authentication: one GetItem by the key's hash                  |
 * | password reset      | RESET#<sha256>          | RESET                                |                                          | the token, usable once, expiring                               |
 * | pending enrolment   | ENROL#<sha256>          | ENROL                                |                                          | sign-up / invitation token, usable once, expiring              |
 * | progress chunk      | PRG#<org>#<exe>         | CHUNK#<nnnnnn>                       |                                          | an execution's progress and log, in order                      |
 * | rate-limit counter  | LIMIT#<scope>           | P<seconds>#<period>                  |                                          | one item per scope and longest window's period                 |
 * | schedule registry   | SCHEDULES               | TRG#<trg>                            |                                          | every scheduled trigger (the local scheduler's one query)      |
 * | worker heartbeat    | WORKERS                 | WORKER#<worker>                      |                                          | every worker that reported within a day                        |
 * | solver inventory    | SOLVERS                 | INVENTORY                            |                                          | the fleet's solvers, one GetItem                               |
 * | metrics totals      | METRICS                 | TOTALS                               |                                          | the service's request counters                                 |
 * | recent request      | METRICS#RECENT          | req_<time-sortable>                  |                                          | the latest requests, newest first                              |
 * | warm-up probe       | WARMUP                  | WARMUP                               |                                          | never there: a worker's first commands touch it to set up      |
 *
 * Sparse gsi1 partitions of their own: ACTIVE (`<kind>#<org>#<id>`, or `trigger_run#<trg>#<run>`: every
 * waiting or running work item, all the sweeper reads) and WEBHOOK_OUTBOX (`<ended at>#<trg>#<run>`:
 * runs whose webhook is still to be handed over).
 *
 * Rate-limit scopes: ORG#<org> (organization), IP#<ip>#<class>, EMAIL#<email>#<class>,
 * EMAIL#<email>#IP#<ip>#login (sign-in per account and address), TRG#<trg>, QUOTA#<org>, PRIORITY#<org>.
 *
 * `begins_with` listings are safe because, within one partition, no sort-key prefix is a prefix of
 * another (CMP# and CMB# differ in their third letter) and the fixed sort keys (ORG, USER) match none
 * (test/unit/functions/core/store/keys.test.ts checks both).
 */

export interface TableKey {
  pk: string;
  sk: string;
}

const ORG = "ORG#";
const USER = "USER#";

/** An entity under one sort-key prefix in its parent's partition, e.g. a project (`ORG#<org>` / `PRJ#<prj>`). */
function childOf<P extends string>(parent: P, pkPrefix: string, skPrefix: string) {
  type Ids = Record<P, string> & { id: string };
  const partition = (parentId: string) => `${pkPrefix}${parentId}`;
  const key = (ids: Ids): TableKey => ({ pk: partition(ids[parent]), sk: `${skPrefix}${ids.id}` });
  /** The ids a key holds; null when the key is not this entity's. */
  const parse = (k: TableKey): Ids | null => {
    if (!k.pk.startsWith(pkPrefix) || !k.sk.startsWith(skPrefix)) return null;
    return { [parent]: k.pk.slice(pkPrefix.length), id: k.sk.slice(skPrefix.length) } as Ids;
  };
  return Object.assign(key, { partition, prefix: skPrefix, parse });
}

/** An entity alone in its partition under a fixed sort key, e.g. a user (`USER#<usr>` / `USER`). */
function single(pkPrefix: string, sk: string) {
  const key = (id: string): TableKey => ({ pk: `${pkPrefix}${id}`, sk });
  const parse = (k: TableKey): string | null => (k.pk.startsWith(pkPrefix) && k.sk === sk ? k.pk.slice(pkPrefix.length) : null);
  return Object.assign(key, { partition: (id: string) => `${pkPrefix}${id}`, sk, parse });
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

const project = childOf("orgId", ORG, "PRJ#");
const document = childOf("orgId", ORG, "DOC#");
const trigger = childOf("orgId", ORG, "TRG#");
const user = single(USER, "USER");
const runSlot = childOf("orgId", ORG, "RUNSLOT#");
const keySlot = childOf("userId", USER, "KEYSLOT#");
const triggerRun = childOf("triggerId", trigger.prefix, "RUN#");

export const keys = {
  /** `ORG#<org>`: the partition of everything an organization owns. */
  org: {
    partition: (orgId: string) => `${ORG}${orgId}`,
    /** The organization id of a key in an organization's partition; null for another partition. */
    parse: (pk: string): string | null => (pk.startsWith(ORG) ? pk.slice(ORG.length) : null),
  },
  organization: single(ORG, "ORG"),
  workspace: childOf("orgId", ORG, "WS#"),
  project,
  projectVersion: childOf("projectId", project.prefix, "VER#"),
  dataset: childOf("projectId", project.prefix, "DST#"),
  document,
  documentVersion: childOf("documentId", document.prefix, "VER#"),
  execution: childOf("orgId", ORG, "EXE#"),
  comparison: childOf("orgId", ORG, "CMP#"),
  matrix: Object.assign(childOf("orgId", ORG, "CMB#"), {
    /** gsi1: a project's matrices. */
    projectIndex: (projectId: string, matrixId: string) => ({ gsi1pk: `PRJCMB#${projectId}`, gsi1sk: matrixId }),
    projectIndexPartition: (projectId: string) => `PRJCMB#${projectId}`,
  }),
  trigger: Object.assign(trigger, {
    /** gsi1: a trigger found from its id alone (a fire carries no organization). */
    idIndex: (triggerId: string) => ({ gsi1pk: `${trigger.prefix}${triggerId}`, gsi1sk: "TRIGGER" }),
  }),
  /**
   * A run, keyed by its id's time-sortable part so that `run_…` and `trun_…` interleave by creation
   * time; `id` is the whole run id (its type prefix is dropped here).
   */
  triggerRun: Object.assign(({ triggerId, id }: { triggerId: string; id: string }): TableKey => triggerRun({ triggerId, id: id.slice(id.indexOf("_") + 1) }), {
    partition: triggerRun.partition,
    prefix: triggerRun.prefix,
  }),
  credit: childOf("orgId", ORG, "CREDIT#"),
  runSlot: Object.assign(({ orgId, slot }: { orgId: string; slot: number }) => runSlot({ orgId, id: pad(slot, 4) }), {
    partition: runSlot.partition,
    prefix: runSlot.prefix,
  }),
  parked: Object.assign(childOf("orgId", ORG, "PARKED#"), {
    /** gsi1: the organization's parked jobs in promotion order (`order` is the sort key's tail). */
    orgIndex: (orgId: string, order: string) => ({ gsi1pk: `PARKED#${orgId}`, gsi1sk: order }),
    orgIndexPartition: (orgId: string) => `PARKED#${orgId}`,
  }),
  user: Object.assign(user, {
    /** gsi1: the organization's users. */
    orgIndex: (orgId: string, userId: string) => ({ gsi1pk: `${ORG}${orgId}`, gsi1sk: `${user.partition(userId)}` }),
    orgIndexPartition: (orgId: string) => `${ORG}${orgId}`,
    orgIndexPrefix: USER,
  }),
  membership: childOf("userId", USER, "MEMBER#"),
  apiKey: childOf("userId", USER, "APIKEY#"),
  keySlot: Object.assign(({ userId, slot }: { userId: string; slot: number }) => keySlot({ userId, id: pad(slot, 4) }), {
    partition: keySlot.partition,
    prefix: keySlot.prefix,
  }),
  keyName: childOf("userId", USER, "KEYNAME#"),
  notification: Object.assign(childOf("userId", USER, "NTF#"), {
    /** Sparse gsi1: the user's unread notifications (the index entry is removed when read). */
    unreadIndex: (userId: string, notificationId: string) => ({ gsi1pk: `UNREAD#${userId}`, gsi1sk: notificationId }),
    unreadIndexPartition: (userId: string) => `UNREAD#${userId}`,
  }),
  emailClaim: single("EMAIL#", "EMAIL"),
  apiKeyLookup: single("KEY#", "KEY"),
  passwordReset: single("RESET#", "RESET"),
  enrolment: single("ENROL#", "ENROL"),
  progressChunk: {
    partition: (orgId: string, executionId: string) => `PRG#${orgId}#${executionId}`,
    prefix: "CHUNK#",
    key: (orgId: string, executionId: string, seq: number): TableKey => ({ pk: `PRG#${orgId}#${executionId}`, sk: `CHUNK#${pad(seq, 6)}` }),
  },
  /** Rate-limit counters: the scope names what is counted, the item one period of its longest window. */
  limit: {
    key: (scope: string, windowSeconds: number, period: number | string): TableKey => ({ pk: `LIMIT#${scope}`, sk: `P${windowSeconds}#${period}` }),
    scope: {
      org: (orgId: string) => `${ORG}${orgId}`,
      clientIp: (ip: string, rateClass: string) => `IP#${ip}#${rateClass}`,
      email: (email: string, rateClass: string) => `EMAIL#${email}#${rateClass}`,
      signInFrom: (email: string, ip: string) => `EMAIL#${email}#IP#${ip}#login`,
      trigger: (triggerId: string) => `${trigger.prefix}${triggerId}`,
      quota: (orgId: string) => `QUOTA#${orgId}`,
      priority: (orgId: string) => `PRIORITY#${orgId}`,
    },
  },
  /** gsi1 ACTIVE: every work item waiting or running (kind: execution, comparison, trigger_run). */
  active: {
    partition: "ACTIVE",
    index: (kind: string, id: string) => ({ gsi1pk: "ACTIVE", gsi1sk: `${kind}#${id}` }),
  },
  /** gsi1 WEBHOOK_OUTBOX: a run whose webhook is still to be handed to the webhook queue. */
  webhookOutbox: {
    partition: "WEBHOOK_OUTBOX",
    index: (endedAtIso: string, triggerId: string, runId: string) => ({ gsi1pk: "WEBHOOK_OUTBOX", gsi1sk: `${endedAtIso}#${triggerId}#${runId}` }),
  },
  scheduleRegistry: Object.assign((triggerId: string): TableKey => ({ pk: "SCHEDULES", sk: `${trigger.prefix}${triggerId}` }), { partition: "SCHEDULES" }),
  workerHeartbeat: Object.assign((workerId: string): TableKey => ({ pk: "WORKERS", sk: `WORKER#${workerId}` }), { partition: "WORKERS" }),
  solverInventory: { pk: "SOLVERS", sk: "INVENTORY" } as TableKey,
  metricsTotals: { pk: "METRICS", sk: "TOTALS" } as TableKey,
  /** Recent requests: the sort key is the request's id itself (`req_…`). */
  recentRequests: { partition: "METRICS#RECENT", prefix: "req_" },
  /** An item that is never written: a starting worker's first UpdateItem and GetItem go there. */
  warmUp: { pk: "WARMUP", sk: "WARMUP" } as TableKey,
} as const;
