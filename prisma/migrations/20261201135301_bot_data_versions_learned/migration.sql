-- Versions for optimistic concurrency, jargon examples, the emoji disabled flag: added in place
-- (ALTER TABLE ADD COLUMN), so Memory keeps its MemoryFts triggers and no table is rebuilt.
ALTER TABLE "Jargon" ADD COLUMN "examples" TEXT NOT NULL DEFAULT '[]';
ALTER TABLE "Jargon" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "Person" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "Memory" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "Emoji" ADD COLUMN "disabled" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Emoji" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- What learning wrote and from which messages (the learned feed, with undo).
CREATE TABLE "LearnedItem" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "kind" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "sourceMessageIds" TEXT NOT NULL,
    "after" TEXT NOT NULL,
    "before" TEXT,
    "afterVersion" INTEGER NOT NULL,
    "ts" REAL NOT NULL,
    "undoneAt" REAL
);
CREATE INDEX "LearnedItem_ts_idx" ON "LearnedItem"("ts");
