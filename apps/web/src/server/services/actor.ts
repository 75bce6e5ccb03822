/**
 * Who calls a service: `ctx.actor`, as the procedure tier built it. Every service that acts for someone takes it
 * as `actor` in its one options object (`{ db, actor, ...input }`), never the caller's ids or role spelled out.
 */
export interface UserActor {
  userId: string;
}

/** A member acting in one team (`teamProcedure` and `teamAdminProcedure`): their role decides what they may do. */
export interface Actor extends UserActor {
  teamId: string;
  role: string;
}
