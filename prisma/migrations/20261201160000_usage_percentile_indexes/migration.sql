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
