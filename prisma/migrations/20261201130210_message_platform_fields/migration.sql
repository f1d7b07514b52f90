-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Message" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "sessionId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "userName" TEXT NOT NULL,
    "groupCard" TEXT,
    "text" TEXT NOT NULL,
    "forward" JSONB,
    "atBot" BOOLEAN,
    "mentionsBot" BOOLEAN,
    "replyTo" TEXT,
    "kind" TEXT,
    "platform" TEXT,
    "images" JSONB,
    "recalled" BOOLEAN NOT NULL DEFAULT false,
    "ts" REAL NOT NULL
);
INSERT INTO "new_Message" ("atBot", "direction", "forward", "groupCard", "id", "kind", "mentionsBot", "messageId", "replyTo", "sessionId", "text", "ts", "userId", "userName") SELECT "atBot", "direction", "forward", "groupCard", "id", "kind", "mentionsBot", "messageId", "replyTo", "sessionId", "text", "ts", "userId", "userName" FROM "Message";
DROP TABLE "Message";
ALTER TABLE "new_Message" RENAME TO "Message";
CREATE INDEX "Message_sessionId_ts_idx" ON "Message"("sessionId", "ts");
CREATE UNIQUE INDEX "Message_sessionId_messageId_key" ON "Message"("sessionId", "messageId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
