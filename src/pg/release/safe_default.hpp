// Safe by default (docs/release.md, "Defaults"): which columns a policy's
// release gives as ⊥ without a rule saying so, from the source's labels as
// they are when the release is read.
#pragma once

#include <string>
#include <vector>

#include "release/policy_catalog.hpp"

namespace privrisk::pg {

// A column a release hides in every row, and why (its label's role, or
// "unlabelled"); `always`: whatever the rules say (an identifier; an
// unlabelled column under unlabelled => 'hide'), else until a rule names it.
struct DefaultHidden {
    std::string column;
    AttrNumber attno;
    std::string reason;
    bool always;
    // An identifier a pseudonymize rule names: pseudonymized in every row, never
    // disclosed as it is (docs/pseudonymization.md), rather than ⊥.
    bool pseudonymized = false;
};

// In column order: a column labelled identifier, always (no rule discloses
// it as it is; with a pseudonymize rule, its pseudonym in every row); one labelled quasi_identifier or sensitive that
// no rule of `policy` names (by column number; a rule discloses it); with unlabelled => 'hide', one without a label,
// always. The labels are read as they are now: a label set after the policy was made covers its column from the next
// read.
std::vector<DefaultHidden> hidden_by_default(const Policy& policy);

// "\"a\", \"b\" (labelled quasi_identifier), \"c\" (labelled sensitive)":
// the columns grouped by reason, for messages.
std::string describe_hidden(const std::vector<DefaultHidden>& hidden);

// A NOTICE from `who` naming the columns a release of `policy` gives as ⊥ in
// every row by default (identifiers, and labelled columns no rule names) and
// how to disclose one; nothing when there are none.
void notice_hidden_by_default(const Policy& policy, const std::string& who);

}  // namespace privrisk::pg
