-- AlterTable
ALTER TABLE "ChatSession" ADD COLUMN     "origin" TEXT,
ADD COLUMN     "originSessionId" TEXT;

-- AlterTable
ALTER TABLE "ToolRecord" ADD COLUMN     "resultJson" TEXT;

-- CreateTable
CREATE TABLE "ModelCall" (
    "id" SERIAL NOT NULL,
    "sessionId" TEXT NOT NULL,
    "cycleId" TEXT,
    "task" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "request" TEXT NOT NULL,
    "response" TEXT,
    "error" TEXT,
    "aborted" BOOLEAN NOT NULL,
    "startedAt" DOUBLE PRECISION NOT NULL,
    "durationMs" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "ModelCall_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ModelCall_sessionId_startedAt_idx" ON "ModelCall"("sessionId", "startedAt");

-- CreateIndex
CREATE INDEX "ChatSession_originSessionId_createdAt_idx" ON "ChatSession"("originSessionId", "createdAt");
