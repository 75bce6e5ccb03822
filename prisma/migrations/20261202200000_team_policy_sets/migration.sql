-- CreateTable
CREATE TABLE "team_policy_sets" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "text" TEXT,
    "hash" TEXT NOT NULL,
    "savedById" TEXT,
    "savedByLabel" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "team_policy_sets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "team_policy_sets_teamId_version_key" ON "team_policy_sets"("teamId", "version");

-- AddForeignKey
ALTER TABLE "team_policy_sets" ADD CONSTRAINT "team_policy_sets_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
