-- CreateTable
CREATE TABLE "LoginSession" (
    "idHash" TEXT NOT NULL PRIMARY KEY,
    "createdAt" REAL NOT NULL,
    "expiresAt" REAL NOT NULL
);

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
    "pendingMessages" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_ChatSession" ("createdAt", "groupId", "id", "isGroupChat", "lastActiveAt", "name", "platform", "userId") SELECT "createdAt", "groupId", "id", "isGroupChat", "lastActiveAt", "name", "platform", "userId" FROM "ChatSession";
DROP TABLE "ChatSession";
ALTER TABLE "new_ChatSession" RENAME TO "ChatSession";
CREATE INDEX "ChatSession_lastActiveAt_idx" ON "ChatSession"("lastActiveAt");
CREATE INDEX "ChatSession_createdAt_id_idx" ON "ChatSession"("createdAt", "id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Backfill (written by hand): the list columns from the snapshots saved before this migration.
UPDATE "ChatSession" SET
    "cycleCount" = COALESCE((SELECT CAST(json_extract("state", '$.cycleCounter') AS INTEGER) FROM "SessionSnapshot" WHERE "sessionId" = "ChatSession"."id" AND json_valid("state")), 0),
    "pendingMessages" = COALESCE((SELECT json_array_length("state", '$.pending') FROM "SessionSnapshot" WHERE "sessionId" = "ChatSession"."id" AND json_valid("state")), 0);

-- CreateIndex
CREATE INDEX "LoginSession_expiresAt_idx" ON "LoginSession"("expiresAt");
