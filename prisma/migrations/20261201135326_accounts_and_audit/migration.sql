-- CreateTable
CREATE TABLE "Account" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "passwordHash" TEXT,
    "tokenHash" TEXT,
    "createdAt" REAL NOT NULL,
    "disabledAt" REAL
);

-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "at" REAL NOT NULL,
    "actorId" TEXT NOT NULL,
    "actorName" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "before" TEXT NOT NULL,
    "after" TEXT NOT NULL,
    "reason" TEXT NOT NULL
);

-- AlterTable (added in place: rebuilding a table needs free space for a copy of it)
ALTER TABLE "LoginSession" ADD COLUMN "accountId" TEXT NOT NULL DEFAULT 'bootstrap';
ALTER TABLE "LoginSession" ADD COLUMN "address" TEXT NOT NULL DEFAULT '';
ALTER TABLE "ToggleAudit" ADD COLUMN "actorId" TEXT NOT NULL DEFAULT '';

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
