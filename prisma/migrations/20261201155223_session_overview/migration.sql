-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ChatSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "isGroupChat" BOOLEAN NOT NULL,
    "platform" TEXT NOT NULL,
    "groupId" TEXT,
    "userId" TEXT,
    "createdAt" REAL NOT NULL,
    "lastActiveAt" REAL NOT NULL,
    "cycleCount" INTEGER NOT NULL DEFAULT 0,
    "pendingMessages" INTEGER NOT NULL DEFAULT 0,
    "imported" BOOLEAN NOT NULL DEFAULT false,
    "archivedAt" REAL,
    "totalTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" REAL NOT NULL DEFAULT 0,
    "unpricedCalls" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_ChatSession" ("createdAt", "cycleCount", "groupId", "id", "imported", "isGroupChat", "lastActiveAt", "name", "pendingMessages", "platform", "userId") SELECT "createdAt", "cycleCount", "groupId", "id", "imported", "isGroupChat", "lastActiveAt", "name", "pendingMessages", "platform", "userId" FROM "ChatSession";
DROP TABLE "ChatSession";
ALTER TABLE "new_ChatSession" RENAME TO "ChatSession";
CREATE INDEX "ChatSession_lastActiveAt_idx" ON "ChatSession"("lastActiveAt");
CREATE INDEX "ChatSession_createdAt_id_idx" ON "ChatSession"("createdAt", "id");
CREATE INDEX "ChatSession_archivedAt_createdAt_id_idx" ON "ChatSession"("archivedAt", "createdAt", "id");
CREATE INDEX "ChatSession_archivedAt_lastActiveAt_id_idx" ON "ChatSession"("archivedAt", "lastActiveAt", "id");
CREATE INDEX "ChatSession_archivedAt_name_id_idx" ON "ChatSession"("archivedAt", "name", "id");
CREATE INDEX "ChatSession_archivedAt_totalTokens_id_idx" ON "ChatSession"("archivedAt", "totalTokens", "id");
CREATE INDEX "ChatSession_archivedAt_costUsd_id_idx" ON "ChatSession"("archivedAt", "costUsd", "id");
CREATE INDEX "ChatSession_archivedAt_pendingMessages_id_idx" ON "ChatSession"("archivedAt", "pendingMessages", "id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Backfill (written by hand): the usage sums from the calls recorded before this migration.
UPDATE "ChatSession" SET
    "totalTokens" = COALESCE((SELECT SUM("promptTokens" + "completionTokens") FROM "ModelUsage" WHERE "sessionId" = "ChatSession"."id"), 0),
    "costUsd" = COALESCE((SELECT TOTAL("costUsd") FROM "ModelUsage" WHERE "sessionId" = "ChatSession"."id"), 0),
    "unpricedCalls" = COALESCE((SELECT SUM(CASE WHEN "costUsd" IS NULL THEN 1 ELSE 0 END) FROM "ModelUsage" WHERE "sessionId" = "ChatSession"."id"), 0);
