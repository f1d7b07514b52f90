-- CreateTable
CREATE TABLE "AnalyticsCycle" (
    "sessionId" TEXT NOT NULL,
    "cycleId" TEXT NOT NULL,
    "startedAt" REAL NOT NULL,
    "endedAt" REAL NOT NULL,
    "gateAction" TEXT,
    "endReason" TEXT NOT NULL,
    "interrupted" BOOLEAN NOT NULL,
    "replies" INTEGER NOT NULL,
    "toolCalls" INTEGER NOT NULL,
    "toolFailures" INTEGER NOT NULL,

    PRIMARY KEY ("sessionId", "cycleId")
);

-- CreateTable
CREATE TABLE "AnalyticsToolCall" (
    "sessionId" TEXT NOT NULL,
    "cycleId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "calls" INTEGER NOT NULL,
    "failures" INTEGER NOT NULL,
    "ts" REAL NOT NULL,

    PRIMARY KEY ("sessionId", "cycleId", "toolName")
);

-- CreateTable
CREATE TABLE "AnalyticsSilence" (
    "sessionId" TEXT NOT NULL,
    "startSeq" INTEGER NOT NULL,
    "startTs" REAL NOT NULL,
    "endTs" REAL NOT NULL,
    "durationMs" REAL NOT NULL,
    "messages" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "cycleId" TEXT,

    PRIMARY KEY ("sessionId", "startSeq")
);

-- CreateTable
CREATE TABLE "AnalyticsCursor" (
    "sessionId" TEXT NOT NULL PRIMARY KEY,
    "seq" INTEGER NOT NULL,
    "state" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "AnalyticsCycle_startedAt_idx" ON "AnalyticsCycle"("startedAt");

-- CreateIndex
CREATE INDEX "AnalyticsCycle_sessionId_startedAt_idx" ON "AnalyticsCycle"("sessionId", "startedAt");

-- CreateIndex
CREATE INDEX "AnalyticsToolCall_ts_idx" ON "AnalyticsToolCall"("ts");

-- CreateIndex
CREATE INDEX "AnalyticsSilence_startTs_idx" ON "AnalyticsSilence"("startTs");
