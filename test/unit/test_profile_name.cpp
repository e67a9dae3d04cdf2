// Profile names compare by key (src/core/profiles/profile_name.hpp): case and
// invisible characters do not make two names.
#include <gtest/gtest.h>

#include "profiles/profile_name.hpp"

using namespace privrisk;

TEST(ProfileName, KeyFoldsCaseAndDropsInvisibleCharacters) {
    EXPECT_EQ(profile_name_key("Public_Use_File"), "public_use_file");
    EXPECT_EQ(profile_name_key("public_use_fil\xE2\x80\x8B" "e"), "public_use_file");  // U+200B zero-width space
    EXPECT_EQ(profile_name_key("\xC2\xAD" "clinic"), "clinic");                       // U+00AD soft hyphen
    EXPECT_EQ(profile_name_key("clin\xE2\x80\x8Dic"), "clinic");                       // U+200D zero-width joiner
    EXPECT_EQ(profile_name_key("clinic\xE2\x80\xAE"), "clinic");                       // U+202E right-to-left override
    EXPECT_EQ(profile_name_key("\xE2\x81\xA6" "clinic\xE2\x81\xA9"), "clinic");        // U+2066 / U+2069 isolates
    EXPECT_EQ(profile_name_key("clinic\xEF\xBB\xBF"), "clinic");                       // U+FEFF
    EXPECT_EQ(profile_name_key("clinic\xF3\xA0\x81\xA1"), "clinic");                   // U+E0061 tag a
    EXPECT_EQ(profile_name_key(" clinic\t"), "clinic");
    EXPECT_EQ(profile_name_key("\xE3\x80\x80" "clinic"), "clinic");                    // U+3000 ideographic space
    EXPECT_EQ(profile_name_key("clinic\xEF\xB8\x8F"), "clinic");                       // U+FE0F variation selector
}

TEST(ProfileName, KeyKeepsWhatIsSeen) {
    EXPECT_EQ(profile_name_key("clinic-2.v1"), "clinic-2.v1");
    EXPECT_NE(profile_name_key("clinic_a"), profile_name_key("clinic_b"));
    EXPECT_EQ(profile_name_key("caf\xC3\xA9"), "caf\xC3\xA9");  // a visible non-ASCII letter stays
    EXPECT_EQ(profile_name_key("a\xFF" "B"), "a\xFF" "b");        // a byte that is not UTF-8 stays as it is
    EXPECT_FALSE(invisible_code_point(U'a'));
    EXPECT_TRUE(invisible_code_point(0x200B));
    EXPECT_TRUE(invisible_code_point(0x061C));
}
