-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "ChatSession" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "isGroupChat" BOOLEAN NOT NULL,
    "platform" TEXT NOT NULL,
    "groupId" TEXT,
    "userId" TEXT,
    "createdAt" DOUBLE PRECISION NOT NULL,
    "lastActiveAt" DOUBLE PRECISION NOT NULL,
    "cycleCount" INTEGER NOT NULL DEFAULT 0,
    "pendingMessages" INTEGER NOT NULL DEFAULT 0,
    "archivedAt" DOUBLE PRECISION,
    "totalTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "unpricedCalls" INTEGER NOT NULL DEFAULT 0,
    "imported" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "ChatSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LoginSession" (
    "idHash" TEXT NOT NULL,
    "createdAt" DOUBLE PRECISION NOT NULL,
    "expiresAt" DOUBLE PRECISION NOT NULL,
    "accountId" TEXT NOT NULL DEFAULT 'bootstrap',
    "address" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "LoginSession_pkey" PRIMARY KEY ("idHash")
);

-- CreateTable
CREATE TABLE "SessionSnapshot" (
    "sessionId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "ts" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "SessionSnapshot_pkey" PRIMARY KEY ("sessionId")
);

-- CreateTable
CREATE TABLE "Message" (
    "id" SERIAL NOT NULL,
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
    "ts" DOUBLE PRECISION NOT NULL,
    "platform" TEXT,
    "images" JSONB,
    "recalled" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "Message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MonitorEvent" (
    "sessionId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "ts" DOUBLE PRECISION NOT NULL,
    "data" JSON NOT NULL,

    CONSTRAINT "MonitorEvent_pkey" PRIMARY KEY ("sessionId","seq")
);

-- CreateTable
CREATE TABLE "SessionMedia" (
    "sessionId" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "bytes" BYTEA NOT NULL,
    "refs" TEXT NOT NULL,

    CONSTRAINT "SessionMedia_pkey" PRIMARY KEY ("sessionId","hash")
);

-- CreateTable
CREATE TABLE "ToolRecord" (
    "id" SERIAL NOT NULL,
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
    "durationMs" DOUBLE PRECISION NOT NULL,
    "ts" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "ToolRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ToolToggle" (
    "toolName" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL DEFAULT '',
    "enabled" BOOLEAN NOT NULL,
    "updatedAt" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "ToolToggle_pkey" PRIMARY KEY ("toolName","scope","sessionId")
);

-- CreateTable
CREATE TABLE "ToggleAudit" (
    "id" SERIAL NOT NULL,
    "toolName" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "sessionId" TEXT,
    "enabled" BOOLEAN NOT NULL,
    "oldEnabled" BOOLEAN,
    "actor" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "ts" DOUBLE PRECISION NOT NULL,
    "actorId" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "ToggleAudit_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Account" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "passwordHash" TEXT,
    "tokenHash" TEXT,
    "createdAt" DOUBLE PRECISION NOT NULL,
    "disabledAt" DOUBLE PRECISION,

    CONSTRAINT "Account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" SERIAL NOT NULL,
    "at" DOUBLE PRECISION NOT NULL,
    "actorId" TEXT NOT NULL,
    "actorName" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "before" TEXT NOT NULL,
    "after" TEXT NOT NULL,
    "reason" TEXT NOT NULL,

    CONSTRAINT "AuditEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Jargon" (
    "id" TEXT NOT NULL,
    "word" TEXT NOT NULL,
    "wordKey" TEXT NOT NULL,
    "meaning" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL DEFAULT '',
    "count" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" DOUBLE PRECISION NOT NULL,
    "examples" TEXT NOT NULL DEFAULT '[]',
    "version" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "Jargon_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Person" (
    "personId" TEXT NOT NULL,
    "personName" TEXT NOT NULL,
    "nameKey" TEXT NOT NULL,
    "userId" TEXT,
    "summary" TEXT NOT NULL,
    "traits" JSONB NOT NULL,
    "facts" JSONB NOT NULL,
    "updatedAt" DOUBLE PRECISION NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "Person_pkey" PRIMARY KEY ("personId")
);

-- CreateTable
CREATE TABLE "Memory" (
    "id" SERIAL NOT NULL,
    "sessionId" TEXT,
    "personName" TEXT,
    "content" TEXT NOT NULL,
    "ts" DOUBLE PRECISION NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "Memory_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Emoji" (
    "id" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "emotions" JSONB NOT NULL,
    "useCount" INTEGER NOT NULL DEFAULT 0,
    "lastUsedAt" DOUBLE PRECISION,
    "createdAt" DOUBLE PRECISION NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "Emoji_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LearnedItem" (
    "id" SERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "sourceMessageIds" TEXT NOT NULL,
    "after" TEXT NOT NULL,
    "before" TEXT,
    "afterVersion" INTEGER NOT NULL,
    "ts" DOUBLE PRECISION NOT NULL,
    "undoneAt" DOUBLE PRECISION,

    CONSTRAINT "LearnedItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ModelUsage" (
    "id" SERIAL NOT NULL,
    "task" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL DEFAULT '',
    "sessionId" TEXT,
    "cycleId" TEXT,
    "promptTokens" INTEGER NOT NULL,
    "completionTokens" INTEGER NOT NULL,
    "cachedTokens" INTEGER NOT NULL DEFAULT 0,
    "latencyMs" DOUBLE PRECISION NOT NULL,
    "success" BOOLEAN NOT NULL,
    "error" TEXT,
    "costUsd" DOUBLE PRECISION,
    "ts" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "ModelUsage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updatedAt" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "AnalyticsCycle" (
    "sessionId" TEXT NOT NULL,
    "cycleId" TEXT NOT NULL,
    "startedAt" DOUBLE PRECISION NOT NULL,
    "endedAt" DOUBLE PRECISION NOT NULL,
    "gateAction" TEXT,
    "endReason" TEXT NOT NULL,
    "interrupted" BOOLEAN NOT NULL,
    "replies" INTEGER NOT NULL,
    "toolCalls" INTEGER NOT NULL,
    "toolFailures" INTEGER NOT NULL,

    CONSTRAINT "AnalyticsCycle_pkey" PRIMARY KEY ("sessionId","cycleId")
);

-- CreateTable
CREATE TABLE "AnalyticsToolCall" (
    "sessionId" TEXT NOT NULL,
    "cycleId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "calls" INTEGER NOT NULL,
    "failures" INTEGER NOT NULL,
    "ts" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "AnalyticsToolCall_pkey" PRIMARY KEY ("sessionId","cycleId","toolName")
);

-- CreateTable
CREATE TABLE "AnalyticsSilence" (
    "sessionId" TEXT NOT NULL,
    "startSeq" INTEGER NOT NULL,
    "startTs" DOUBLE PRECISION NOT NULL,
    "endTs" DOUBLE PRECISION NOT NULL,
    "durationMs" DOUBLE PRECISION NOT NULL,
    "messages" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "cycleId" TEXT,

    CONSTRAINT "AnalyticsSilence_pkey" PRIMARY KEY ("sessionId","startSeq")
);

-- CreateTable
CREATE TABLE "AnalyticsCursor" (
    "sessionId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "state" TEXT NOT NULL,

    CONSTRAINT "AnalyticsCursor_pkey" PRIMARY KEY ("sessionId")
);

-- CreateIndex
CREATE INDEX "ChatSession_lastActiveAt_idx" ON "ChatSession"("lastActiveAt");

-- CreateIndex
CREATE INDEX "ChatSession_createdAt_id_idx" ON "ChatSession"("createdAt", "id");

-- CreateIndex
CREATE INDEX "ChatSession_archivedAt_createdAt_id_idx" ON "ChatSession"("archivedAt", "createdAt", "id");

-- CreateIndex
CREATE INDEX "ChatSession_archivedAt_lastActiveAt_id_idx" ON "ChatSession"("archivedAt", "lastActiveAt", "id");

-- CreateIndex
CREATE INDEX "ChatSession_archivedAt_name_id_idx" ON "ChatSession"("archivedAt", "name", "id");

-- CreateIndex
CREATE INDEX "ChatSession_archivedAt_totalTokens_id_idx" ON "ChatSession"("archivedAt", "totalTokens", "id");

-- CreateIndex
CREATE INDEX "ChatSession_archivedAt_costUsd_id_idx" ON "ChatSession"("archivedAt", "costUsd", "id");

-- CreateIndex
CREATE INDEX "ChatSession_archivedAt_pendingMessages_id_idx" ON "ChatSession"("archivedAt", "pendingMessages", "id");

-- CreateIndex
CREATE INDEX "LoginSession_expiresAt_idx" ON "LoginSession"("expiresAt");

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
CREATE UNIQUE INDEX "Account_name_key" ON "Account"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Account_tokenHash_key" ON "Account"("tokenHash");

-- CreateIndex
CREATE INDEX "AuditEntry_at_idx" ON "AuditEntry"("at");

-- CreateIndex
CREATE INDEX "AuditEntry_actorId_idx" ON "AuditEntry"("actorId");

-- CreateIndex
CREATE INDEX "AuditEntry_action_idx" ON "AuditEntry"("action");

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
CREATE INDEX "LearnedItem_ts_idx" ON "LearnedItem"("ts");

-- CreateIndex
CREATE INDEX "ModelUsage_ts_idx" ON "ModelUsage"("ts");

-- CreateIndex
CREATE INDEX "ModelUsage_task_ts_idx" ON "ModelUsage"("task", "ts");

-- CreateIndex
CREATE INDEX "ModelUsage_sessionId_idx" ON "ModelUsage"("sessionId");

-- CreateIndex
CREATE INDEX "ModelUsage_ts_latencyMs_idx" ON "ModelUsage"("ts", "latencyMs");

-- CreateIndex
CREATE INDEX "ModelUsage_task_latencyMs_ts_idx" ON "ModelUsage"("task", "latencyMs", "ts");

-- CreateIndex
CREATE INDEX "ModelUsage_model_latencyMs_ts_idx" ON "ModelUsage"("model", "latencyMs", "ts");

-- CreateIndex
CREATE INDEX "ModelUsage_endpoint_latencyMs_ts_idx" ON "ModelUsage"("endpoint", "latencyMs", "ts");

-- CreateIndex
CREATE INDEX "ModelUsage_sessionId_latencyMs_ts_idx" ON "ModelUsage"("sessionId", "latencyMs", "ts");

-- CreateIndex
CREATE INDEX "AnalyticsCycle_startedAt_idx" ON "AnalyticsCycle"("startedAt");

-- CreateIndex
CREATE INDEX "AnalyticsCycle_sessionId_startedAt_idx" ON "AnalyticsCycle"("sessionId", "startedAt");

-- CreateIndex
CREATE INDEX "AnalyticsToolCall_ts_idx" ON "AnalyticsToolCall"("ts");

-- CreateIndex
CREATE INDEX "AnalyticsSilence_startTs_idx" ON "AnalyticsSilence"("startTs");
