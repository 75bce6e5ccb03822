-- Single sign-on identity providers (OIDC and SAML 2.0) for the deployment, read by Better Auth's SSO plugin.
CREATE TABLE "sso_providers" (
    "id" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "oidcConfig" TEXT,
    "samlConfig" TEXT,
    "userId" TEXT,
    "providerId" TEXT NOT NULL,
    "organizationId" TEXT,
    "domain" TEXT NOT NULL,
    "domainVerified" BOOLEAN NOT NULL DEFAULT true,
    "name" TEXT NOT NULL,
    "ssoOnly" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "sso_providers_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "sso_providers_providerId_key" ON "sso_providers"("providerId");
