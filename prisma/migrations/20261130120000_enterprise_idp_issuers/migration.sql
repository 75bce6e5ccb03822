-- Enterprise identity providers whose identity assertion grants (ID-JAG) the MCP route's authorization server accepts.
CREATE TYPE "IdpMemberClaim" AS ENUM ('sub', 'email');

CREATE TABLE "enterprise_idp_issuers" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "jwksUrl" TEXT NOT NULL,
    "memberClaim" "IdpMemberClaim" NOT NULL DEFAULT 'sub',
    "accountProviderId" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "enterprise_idp_issuers_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "enterprise_idp_issuers_issuer_key" ON "enterprise_idp_issuers"("issuer");
