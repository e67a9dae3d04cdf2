// Privacy budgets: one per source relation, in privrisk.budget; every spend is
// a row of privrisk.budget_ledger. Both tables are written only by this module,
// as their owner, so a role that may release may not raise a budget.
#pragma once

#include <string>

#include "common/postgres.hpp"

namespace privrisk::pg {

struct Spend {
    double epsilon;
    double delta;
    std::string mechanism;
    std::string parameters;  // jsonb text
    bool seeded;             // a reproducible run: recorded as not private
};

// Takes the spend from `relid`'s budget and commits it, in a transaction of its
// own (dp_budget_worker.cpp), before the caller reads a single source row: the
// caller's rollback cannot undo it. An error (nothing spent) when the relation
// has no committed budget or the spend would overspend it.
void spend_budget(Oid relid, const Spend& spend);

// What the budget worker did with one request.
struct SpendOutcome {
    enum Status { Spent, NoBudget, Overspent, Failed, NoResult } status = NoResult;
    double epsilon = 0, delta = 0;              // the budget (Overspent)
    double spent_epsilon = 0, spent_delta = 0;  // spent before this request (Overspent)
    int sqlstate = 0;                           // Failed: the worker's error
    std::string message;
};

struct SpendRequest {
    Oid relid;
    Oid owner;  // of privrisk.budget: the worker's role
    const Spend* spend;
    std::string caller;  // recorded as spent_by
};

// Runs the check and the spend in a dynamic background worker and waits for it.
SpendOutcome run_budget_worker(const SpendRequest& request);

// The role that owns privrisk.budget (and so the ledger).
Oid budget_owner();

}  // namespace privrisk::pg
