import type { Hono } from "hono";
import { z } from "zod";
import { NotificationSchema } from "../../core/notifications/notifications.js";
import type { ApiEnv } from "../http/context.js";
import { queryBool, queryInt, requirePrincipal, route } from "../http/route.js";

const Marked = z.object({ success: z.boolean(), marked_count: z.number().int() });

export function registerNotificationRoutes(app: Hono<ApiEnv>): void {
  route(
    app,
    {
      method: "get",
      path: "/api/v2/notifications",
      operationId: "listNotifications",
      summary: "The caller's notifications, newest first",
      tag: "Notifications",
      access: "user",
      query: z.object({ unread_only: queryBool(false), limit: queryInt(50, 1, 100) }),
      responses: {
        200: {
          description: "`total` is the number returned; `unread_count` all unread.",
          schema: z.object({ items: z.array(NotificationSchema), total: z.number().int(), unread_count: z.number().int() }),
        },
      },
    },
    async (c, input) => {
      const principal = requirePrincipal(input);
      const n = c.get("deps").notifications;
      const [items, unread] = await Promise.all([
        n.list(principal.userId, { unreadOnly: input.query.unread_only, limit: input.query.limit }),
        n.unreadCount(principal.userId),
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
      responses: { 200: { description: "Unread count.", schema: z.object({ unread_count: z.number().int() }) } },
    },
    async (c, input) => c.json({ unread_count: await c.get("deps").notifications.unreadCount(requirePrincipal(input).userId) }),
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
      responses: { 200: { description: "How many were marked.", schema: Marked } },
    },
    async (c, input) => c.json({ success: true, marked_count: await c.get("deps").notifications.markAllRead(requirePrincipal(input).userId) }),
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
      params: z.object({ notification_id: z.string().min(1) }),
      responses: { 200: { description: "Marked.", schema: Marked }, 404: { description: "not_found" } },
    },
    async (c, input) => {
      await c.get("deps").notifications.markRead(requirePrincipal(input).userId, input.params.notification_id);
      return c.json({ success: true, marked_count: 1 });
    },
  );
}
