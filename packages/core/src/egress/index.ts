export { classifyAddress, canonicalAddress, isIpAddress, type AddressClass, type AddressKind } from "./address";
export { egressRefusalOf, EgressRefusedError, isEgressRefused } from "./errors";
export { egressLookup } from "./lookup";
export {
  checkEgressAddress,
  hostPort,
  normaliseHost,
  parseEgressAllow,
  STRICT_EGRESS_POLICY,
  type EgressDecision,
  type EgressException,
  type EgressPolicy,
} from "./policy";
export { checkEgressUrl, defaultPort } from "./url";
export { egressEnvShape } from "./env";
