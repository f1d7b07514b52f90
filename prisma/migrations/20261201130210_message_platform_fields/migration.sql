-- Chat platform fields of a message, added in place: no table rebuild, however many messages are stored.
ALTER TABLE "Message" ADD COLUMN "platform" TEXT;
ALTER TABLE "Message" ADD COLUMN "images" JSONB;
ALTER TABLE "Message" ADD COLUMN "recalled" BOOLEAN NOT NULL DEFAULT false;
