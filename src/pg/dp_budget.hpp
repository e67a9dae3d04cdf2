// Privacy budgets (SPEC §4.7): one per source relation, in privrisk.budget;
// every spend is a row of privrisk.budget_ledger. Both tables are written only
// here, as their owner, so a role that may release may not raise a budget.
#pragma once

#include <string>

#include "postgres.hpp"

namespace privrisk::pg {

struct Spend {
    double epsilon;
    double delta;
    std::string mechanism;
    std::string parameters;  // jsonb text
    bool seeded;             // a reproducible run: recorded as not private
};

// Takes the spend from `relid`'s budget in the current transaction: the budget
// row stays locked until the transaction ends, and an abort undoes the spend.
// An error (nothing spent) when the relation has no budget or it would overspend.
void spend_budget(Oid relid, const Spend& spend);

}  // namespace privrisk::pg
