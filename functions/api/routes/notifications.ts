import type { Hono } from "hono";
import { z } from "zod";
import { NotificationSchema } from "../../core/notifications/notifications.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { queryBool, queryInt, route } from "../http/route.js";
import { NotificationIdParams } from "../http/route-parts.js";

const Marked = z.object({ success: z.boolean(), marked_count: z.number().int() });

export function registerNotificationRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "notifications">): void {
  const { notifications } = deps;
  route(
    app,
    {
      method: "get",
      path: "/api/v2/notifications",
      operationId: "listNotifications",
      summary: "The caller's notifications, newest first",
      tag: "Notifications",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      query: z.object({ unread_only: queryBool(false), limit: queryInt(50, 1, 100) }),
      responses: {
        200: {
          description: "`total` is the number returned; `unread_count` all unread.",
          schema: z.object({ items: z.array(NotificationSchema), total: z.number().int(), unread_count: z.number().int() }),
        },
      },
    },
    async (c, input) => {
      const principal = input.principal;
      const [items, unread] = await Promise.all([
        notifications.list(principal.userId, { unreadOnly: input.query.unread_only, limit: input.query.limit }),
        notifications.unreadCount(principal.userId),
      ]);
      return c.json({ items, total: items.length, unread_count: unread });
    },
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/notifications/unread-count",
      operationId: "unreadNotificationCount",
      summary: "Unread count, for badges and polling",
      tag: "Notifications",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      responses: { 200: { description: "Unread count.", schema: z.object({ unread_count: z.number().int() }) } },
    },
    async (c, input) => c.json({ unread_count: await notifications.unreadCount(input.principal.userId) }),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/notifications/read-all",
      operationId: "markAllNotificationsRead",
      summary: "Mark all the caller's notifications read",
      tag: "Notifications",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: [],
      responses: { 200: { description: "How many were marked.", schema: Marked } },
    },
    async (c, input) => c.json({ success: true, marked_count: await notifications.markAllRead(input.principal.userId) }),
  );

  route(
    app,
    {
      method: "post",
      path: "/api/v2/notifications/:notification_id/read",
      operationId: "markNotificationRead",
      summary: "Mark one notification read",
      tag: "Notifications",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: NotificationIdParams,
      responses: { 200: { description: "Marked.", schema: Marked } },
    },
    async (c, input) => {
      await notifications.markRead(input.principal.userId, input.params.notification_id);
      return c.json({ success: true, marked_count: 1 });
    },
  );
}
