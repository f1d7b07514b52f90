-- Trigram operator classes for the Memory search index below (a trusted extension: the database owner may
-- create it). Written by hand: Prisma does not manage extensions here.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- AlterTable
ALTER TABLE "Emoji" ADD COLUMN     "rowid" BIGSERIAL NOT NULL;

-- AlterTable
ALTER TABLE "Jargon" ADD COLUMN     "rowid" BIGSERIAL NOT NULL;

-- AlterTable
ALTER TABLE "Person" ADD COLUMN     "rowid" BIGSERIAL NOT NULL;

-- AlterTable
ALTER TABLE "ToolToggle" ADD COLUMN     "rowid" BIGSERIAL NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "Emoji_rowid_key" ON "Emoji"("rowid");

-- CreateIndex
CREATE UNIQUE INDEX "Jargon_rowid_key" ON "Jargon"("rowid");

-- CreateIndex
CREATE INDEX "Memory_content_idx" ON "Memory" USING GIN ("content" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "Person_rowid_key" ON "Person"("rowid");

-- CreateIndex
CREATE UNIQUE INDEX "ToolToggle_rowid_key" ON "ToolToggle"("rowid");
