-- The email domains an enterprise identity provider owns: an ID-JAG naming a member by email is accepted only for
-- an address in one of them. Existing providers get none, which keeps their documented behaviour (any address)
-- until a deployment owner gives them domains.
ALTER TABLE "enterprise_idp_issuers" ADD COLUMN "emailDomains" TEXT[] DEFAULT ARRAY[]::TEXT[];
