import { z } from "zod";
import { epochSeconds, isoTime, type Clock } from "../clock.js";
import { notFound } from "../errors.js";
import { newId } from "../ids.js";
import { assign, buildUpdate, equals, itemExists, type Part } from "../store/conditions.js";
import type { Table } from "../store/table.js";
import { keys } from "../store/keys.js";

/**
 * In-app notifications, in the user's partition newest first by id (keys: see store/keys.ts). An unread
 * notification also sits in the sparse gsi1 unread partition; reading it removes it from there. The unread
 * count is that partition's size, so it cannot drift from the notifications themselves.
 */
export const NOTIFICATION_TYPES = ["execution_complete", "execution_failed", "credits_low", "credits_purchased", "subscription_updated", "system"] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const NotificationSchema = z.object({
  id: z.string(),
  type: z.enum(NOTIFICATION_TYPES),
  title: z.string(),
  message: z.string(),
  data: z.record(z.string(), z.unknown()),
  link: z.string(),
  is_read: z.boolean(),
  created_at: z.string(),
});
export type Notification = z.infer<typeof NotificationSchema>;

export interface NewNotification {
  type: NotificationType;
  title: string;
  message: string;
  data?: Record<string, unknown>;
  link: string;
}

const RETENTION_DAYS = 90;

const view = (item: Record<string, unknown>): Notification => ({
  id: item.id as string,
  type: item.type as NotificationType,
  title: item.title as string,
  message: item.message as string,
  data: (item.data as Record<string, unknown>) ?? {},
  link: item.link as string,
  is_read: item.is_read as boolean,
  created_at: item.created_at as string,
});

/** Still unread (marking it again counts nothing). */
const stillUnread = () => equals("is_read", false);

/** Read, and out of the UNREAD index, on `condition`. */
const markedRead = (condition: Part) => buildUpdate({ set: [assign("is_read", true)], remove: ["gsi1pk", "gsi1sk"], condition });

export class Notifications {
  constructor(
    private readonly table: Table,
    private readonly clock: Clock,
  ) {}

  async notify(userId: string, n: NewNotification): Promise<Notification> {
    const now = this.clock.now();
    const id = newId("ntf", now);
    const item = {
      ...keys.notification({ userId, id }),
      ...keys.notification.unreadIndex(userId, id),
      id,
      type: n.type,
      title: n.title,
      message: n.message,
      data: n.data ?? {},
      link: n.link,
      is_read: false,
      created_at: isoTime(now),
      ttl: epochSeconds(now) + RETENTION_DAYS * 86_400,
    };
    await this.table.putNew(item);
    return view(item);
  }

  async list(userId: string, options: { unreadOnly: boolean; limit: number }): Promise<Notification[]> {
    if (options.unreadOnly) {
      const page = await this.table.queryPage({
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :p",
        ExpressionAttributeValues: { ":p": keys.notification.unreadIndexPartition(userId) },
        ScanIndexForward: false,
        Limit: options.limit,
      });
      return page.items.map(view);
    }
    return (await this.table.queryPrefix(keys.notification.partition(userId), keys.notification.prefix, { newestFirst: true, limit: options.limit })).map(view);
  }

  async unreadCount(userId: string): Promise<number> {
    return this.table.count({
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :p",
      ExpressionAttributeValues: { ":p": keys.notification.unreadIndexPartition(userId) },
    });
  }

  /** Marks one read (idempotent); 404 when the user has no such notification. */
  async markRead(userId: string, id: string): Promise<void> {
    const out = await this.table.update({
      Key: keys.notification({ userId, id }),
      ...markedRead(itemExists()),
    });
    if (!out) throw notFound("Notification");
  }

  async markAllRead(userId: string): Promise<number> {
    const unread = await this.table.queryAll<{ id: string }>({
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :p",
      ExpressionAttributeValues: { ":p": keys.notification.unreadIndexPartition(userId) },
    });
    let marked = 0;
    for (const n of unread) {
      const out = await this.table.update({
        Key: keys.notification({ userId, id: n.id }),
        ...markedRead(stillUnread()),
      });
      if (out) marked++;
    }
    return marked;
  }
}
