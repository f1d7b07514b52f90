-- CreateTable
CREATE TABLE "SessionMedia" (
    "sessionId" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "bytes" BLOB NOT NULL,
    "refs" TEXT NOT NULL,

    PRIMARY KEY ("sessionId", "hash")
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
    "pendingMessages" INTEGER NOT NULL DEFAULT 0,
    "imported" BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO "new_ChatSession" ("createdAt", "cycleCount", "groupId", "id", "isGroupChat", "lastActiveAt", "name", "pendingMessages", "platform", "userId") SELECT "createdAt", "cycleCount", "groupId", "id", "isGroupChat", "lastActiveAt", "name", "pendingMessages", "platform", "userId" FROM "ChatSession";
DROP TABLE "ChatSession";
ALTER TABLE "new_ChatSession" RENAME TO "ChatSession";
CREATE INDEX "ChatSession_lastActiveAt_idx" ON "ChatSession"("lastActiveAt");
CREATE INDEX "ChatSession_createdAt_id_idx" ON "ChatSession"("createdAt", "id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
