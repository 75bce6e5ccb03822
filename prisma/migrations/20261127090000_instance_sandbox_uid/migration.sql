-- The host uid an instance's sandboxed stdio processes run as when the worker is root. It was a hash of the
-- instance id, which two instances could share. Now the worker allocates one at the first launch, and the
-- unique index keeps every instance's its own. Existing instances get theirs at their next launch.
ALTER TABLE "instances" ADD COLUMN "sandboxUid" INTEGER;
CREATE UNIQUE INDEX "instances_sandboxUid_key" ON "instances"("sandboxUid");
