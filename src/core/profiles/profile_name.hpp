// A risk profile's name is what a verdict cites, so two names that look the
// same must not name two profiles (docs/profiles.md). Names compare by their
// key: ASCII letters folded to lower case, and every character a reader cannot
// see dropped (Unicode format characters (Cf: zero-width spaces and joiners,
// the soft hyphen, bidi controls, tags…), the other default-ignorable code
// points (variation selectors, fillers) and white space). A new name whose key
// is an existing profile's is refused, naming that profile.
#pragma once

#include <string>
#include <string_view>

namespace privrisk {

// The key of `name` (UTF-8; a byte that starts no valid sequence is kept as it is).
std::string profile_name_key(std::string_view name);

// Whether the code point is dropped from a key: invisible (Cf, default ignorable) or white space.
bool invisible_code_point(char32_t cp);

}  // namespace privrisk
