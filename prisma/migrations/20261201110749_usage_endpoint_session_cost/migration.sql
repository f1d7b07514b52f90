-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ModelUsage" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "task" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL DEFAULT '',
    "sessionId" TEXT,
    "cycleId" TEXT,
    "promptTokens" INTEGER NOT NULL,
    "completionTokens" INTEGER NOT NULL,
    "cachedTokens" INTEGER NOT NULL DEFAULT 0,
    "latencyMs" REAL NOT NULL,
    "success" BOOLEAN NOT NULL,
    "error" TEXT,
    "costUsd" REAL,
    "ts" REAL NOT NULL
);
INSERT INTO "new_ModelUsage" ("completionTokens", "id", "latencyMs", "model", "promptTokens", "success", "task", "ts") SELECT "completionTokens", "id", "latencyMs", "model", "promptTokens", "success", "task", "ts" FROM "ModelUsage";
DROP TABLE "ModelUsage";
ALTER TABLE "new_ModelUsage" RENAME TO "ModelUsage";
CREATE INDEX "ModelUsage_ts_idx" ON "ModelUsage"("ts");
CREATE INDEX "ModelUsage_task_ts_idx" ON "ModelUsage"("task", "ts");
CREATE INDEX "ModelUsage_sessionId_idx" ON "ModelUsage"("sessionId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
