/** Pub/sub channel names. Plain strings: core knows nothing about the transport (Redis lives in the apps). */
export function teamChannel(teamId: string): string {
  return `switchboard:team:${teamId}`;
}

export function memberChannel(userId: string): string {
  return `switchboard:member:${userId}`;
}
