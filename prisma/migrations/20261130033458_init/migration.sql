-- CreateTable
CREATE TABLE "ChatSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "isGroupChat" BOOLEAN NOT NULL,
    "platform" TEXT NOT NULL,
    "groupId" TEXT,
    "userId" TEXT,
    "createdAt" REAL NOT NULL,
    "lastActiveAt" REAL NOT NULL
);

-- CreateTable
CREATE TABLE "SessionSnapshot" (
    "sessionId" TEXT NOT NULL PRIMARY KEY,
    "state" TEXT NOT NULL,
    "ts" REAL NOT NULL
);

-- CreateTable
CREATE TABLE "Message" (
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
    "ts" REAL NOT NULL
);

-- CreateTable
CREATE TABLE "MonitorEvent" (
    "sessionId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "ts" REAL NOT NULL,
    "data" JSONB NOT NULL,

    PRIMARY KEY ("sessionId", "seq")
);

-- CreateTable
CREATE TABLE "ToolRecord" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "sessionId" TEXT NOT NULL,
    "cycleId" TEXT NOT NULL,
    "callId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "providerName" TEXT NOT NULL,
    "providerType" TEXT NOT NULL,
    "arguments" JSONB NOT NULL,
    "success" BOOLEAN NOT NULL,
    "content" TEXT NOT NULL,
    "errorMessage" TEXT NOT NULL,
    "structuredContent" TEXT,
    "reasoning" TEXT NOT NULL,
    "durationMs" REAL NOT NULL,
    "ts" REAL NOT NULL
);

-- CreateTable
CREATE TABLE "ToolToggle" (
    "toolName" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL DEFAULT '',
    "enabled" BOOLEAN NOT NULL,
    "updatedAt" REAL NOT NULL,

    PRIMARY KEY ("toolName", "scope", "sessionId")
);

-- CreateTable
CREATE TABLE "ToggleAudit" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "toolName" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "sessionId" TEXT,
    "enabled" BOOLEAN NOT NULL,
    "oldEnabled" BOOLEAN,
    "actor" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "ts" REAL NOT NULL
);

-- CreateTable
CREATE TABLE "Jargon" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "word" TEXT NOT NULL,
    "wordKey" TEXT NOT NULL,
    "meaning" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL DEFAULT '',
    "count" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" REAL NOT NULL
);

-- CreateTable
CREATE TABLE "Person" (
    "personId" TEXT NOT NULL PRIMARY KEY,
    "personName" TEXT NOT NULL,
    "nameKey" TEXT NOT NULL,
    "userId" TEXT,
    "summary" TEXT NOT NULL,
    "traits" JSONB NOT NULL,
    "facts" JSONB NOT NULL,
    "updatedAt" REAL NOT NULL
);

-- CreateTable
CREATE TABLE "Memory" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "sessionId" TEXT,
    "personName" TEXT,
    "content" TEXT NOT NULL,
    "ts" REAL NOT NULL
);

-- CreateTable
CREATE TABLE "Emoji" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "file" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "emotions" JSONB NOT NULL,
    "useCount" INTEGER NOT NULL DEFAULT 0,
    "lastUsedAt" REAL,
    "createdAt" REAL NOT NULL
);

-- CreateTable
CREATE TABLE "ModelUsage" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "task" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "promptTokens" INTEGER NOT NULL,
    "completionTokens" INTEGER NOT NULL,
    "latencyMs" REAL NOT NULL,
    "success" BOOLEAN NOT NULL,
    "ts" REAL NOT NULL
);

-- CreateIndex
CREATE INDEX "ChatSession_lastActiveAt_idx" ON "ChatSession"("lastActiveAt");

-- CreateIndex
CREATE INDEX "Message_sessionId_ts_idx" ON "Message"("sessionId", "ts");

-- CreateIndex
CREATE UNIQUE INDEX "Message_sessionId_messageId_key" ON "Message"("sessionId", "messageId");

-- CreateIndex
CREATE INDEX "ToolRecord_sessionId_ts_idx" ON "ToolRecord"("sessionId", "ts");

-- CreateIndex
CREATE INDEX "ToolRecord_toolName_ts_idx" ON "ToolRecord"("toolName", "ts");

-- CreateIndex
CREATE INDEX "ToggleAudit_ts_idx" ON "ToggleAudit"("ts");

-- CreateIndex
CREATE INDEX "Jargon_updatedAt_idx" ON "Jargon"("updatedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Jargon_wordKey_sessionId_key" ON "Jargon"("wordKey", "sessionId");

-- CreateIndex
CREATE INDEX "Person_nameKey_idx" ON "Person"("nameKey");

-- CreateIndex
CREATE INDEX "Person_userId_idx" ON "Person"("userId");

-- CreateIndex
CREATE INDEX "Person_updatedAt_idx" ON "Person"("updatedAt");

-- CreateIndex
CREATE INDEX "Memory_ts_idx" ON "Memory"("ts");

-- CreateIndex
CREATE UNIQUE INDEX "Emoji_file_key" ON "Emoji"("file");

-- CreateIndex
CREATE INDEX "ModelUsage_ts_idx" ON "ModelUsage"("ts");

-- CreateIndex
CREATE INDEX "ModelUsage_task_ts_idx" ON "ModelUsage"("task", "ts");

-- Full-text index over Memory (written by hand: Prisma cannot model virtual tables).
-- External-content FTS5 table keyed by Memory.id (INTEGER PRIMARY KEY = rowid, stable across VACUUM).
-- The trigram tokenizer matches substrings, so Chinese text (no spaces between words) is searchable;
-- queries shorter than 3 characters fall back to LIKE in the store.
CREATE VIRTUAL TABLE "MemoryFts" USING fts5(
    "content",
    content='Memory',
    content_rowid='id',
    tokenize='trigram'
);

-- Keep MemoryFts in sync with Memory.
CREATE TRIGGER "Memory_fts_insert" AFTER INSERT ON "Memory" BEGIN
    INSERT INTO "MemoryFts"(rowid, "content") VALUES (new."id", new."content");
END;

CREATE TRIGGER "Memory_fts_delete" AFTER DELETE ON "Memory" BEGIN
    INSERT INTO "MemoryFts"("MemoryFts", rowid, "content") VALUES ('delete', old."id", old."content");
END;

CREATE TRIGGER "Memory_fts_update" AFTER UPDATE OF "content" ON "Memory" BEGIN
    INSERT INTO "MemoryFts"("MemoryFts", rowid, "content") VALUES ('delete', old."id", old."content");
    INSERT INTO "MemoryFts"(rowid, "content") VALUES (new."id", new."content");
END;
