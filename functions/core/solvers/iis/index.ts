export { deletionFilter, type FeasibilityOracle, type FeasibilityVerdict, type FilterResult } from "./deletion-filter.js";
export { allMembers, infeasibilityOf, type Member, membersOf, subproblem, VERDICT_UNCONFIRMED } from "./members.js";
export { jaosOracle, verdictOf } from "./oracle.js";
export { checkInfeasibility, type InfeasibilityCheck, VERIFY_MAX_MEMBERS, verifyInfeasibility } from "./verify.js";
export { explanationSearchSeconds, searchDeadlineMs, verifyDeadlineMs } from "./budget.js";
