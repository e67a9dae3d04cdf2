#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "common/error.hpp"
#include "labels/column_label.hpp"
#include "labels/role_arguments.hpp"

using privrisk::ColumnLabel;
using privrisk::ColumnRole;
using privrisk::Error;

TEST(ColumnLabel, ParsesEachRoleAndReadsBack) {
    EXPECT_EQ(ColumnLabel::parse("identifier").role, ColumnRole::Identifier);
    EXPECT_EQ(ColumnLabel::parse("sensitive").role, ColumnRole::Sensitive);
    EXPECT_EQ(ColumnLabel::parse("insensitive").role, ColumnRole::Insensitive);
    ColumnLabel plain = ColumnLabel::parse("quasi_identifier");
    EXPECT_EQ(plain.role, ColumnRole::QuasiIdentifier);
    EXPECT_EQ(plain.hierarchy, "");
    ColumnLabel with = ColumnLabel::parse("quasi_identifier(zip 3-digit)");
    EXPECT_EQ(with.role, ColumnRole::QuasiIdentifier);
    EXPECT_EQ(with.hierarchy, "zip 3-digit");
    for (const char* text : {"identifier", "quasi_identifier", "quasi_identifier(age)", "sensitive", "insensitive"})
        EXPECT_EQ(ColumnLabel::parse(text).text(), text);
}

TEST(ColumnLabel, RefusesAnythingElseNamingTheForms) {
    for (const char* text : {"", "Identifier", " identifier", "identifier ", "quasi_identifier()", "quasi_identifier(age",
                             "quasi_identifier(a(b))", "quasi_identifier (age)", "sensitive(x)", "qi", "hide"}) {
        try {
            ColumnLabel::parse(text);
            ADD_FAILURE() << "accepted " << text;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("'quasi_identifier(<hierarchy>)'"), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(ColumnLabel::parse("quasi_identifier(" + std::string(201, 'a') + ")"), Error);
    EXPECT_NO_THROW(ColumnLabel::parse("quasi_identifier(" + std::string(200, 'a') + ")"));
    EXPECT_THROW(ColumnLabel::parse(std::string("quasi_identifier(a\nb)")), Error);
}

TEST(ColumnLabel, StrictSyntaxRefusesSpacesAroundTheHierarchyName) {
    for (const char* text : {"quasi_identifier( age )", "quasi_identifier( age)", "quasi_identifier(age )",
                             "quasi_identifier(  )"}) {
        try {
            ColumnLabel::parse(text);
            ADD_FAILURE() << "accepted " << text;
        } catch (const Error& e) {
            std::string m = e.what();
            EXPECT_NE(m.find(std::string("privrisk label \"") + text + "\""), std::string::npos) << m;
            EXPECT_NE(m.find("'quasi_identifier(<hierarchy>)'"), std::string::npos) << m;
        }
    }
    try {
        ColumnLabel::parse("quasi_identifier( age )");
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("write 'quasi_identifier(age)', without spaces"), std::string::npos)
            << e.what();
    }
    // Spaces inside a name are part of it.
    EXPECT_EQ(ColumnLabel::parse("quasi_identifier(zip 3-digit)").hierarchy, "zip 3-digit");
}

namespace {

using privrisk::LabelledColumn;
using privrisk::OptionalTexts;
using privrisk::resolve_role_arguments;

std::vector<LabelledColumn> patients() {
    return {{"id", ColumnLabel::parse("identifier")},
            {"age", ColumnLabel::parse("quasi_identifier(age)")},
            {"sex", ColumnLabel::parse("quasi_identifier")},
            {"zip", ColumnLabel::parse("quasi_identifier(zip)")},
            {"diagnosis", ColumnLabel::parse("sensitive")},
            {"region", ColumnLabel::parse("insensitive")}};
}

}  // namespace

TEST(RoleArguments, OmittedArgumentsComeFromTheLabels) {
    auto r = resolve_role_arguments(patients(), std::nullopt, std::nullopt, std::nullopt, "audit", "patients");
    EXPECT_EQ(r.quasi_identifiers, (std::vector<std::string>{"age", "sex", "zip"}));
    ASSERT_TRUE(r.hierarchies);
    EXPECT_EQ(*r.hierarchies, (std::vector<std::optional<std::string>>{"age", std::nullopt, "zip"}));
    EXPECT_EQ(r.sensitive, std::optional<std::string>("diagnosis"));
}

TEST(RoleArguments, ExplicitArgumentsWinAndLabelsFillTheRest) {
    OptionalTexts qi = std::vector<std::optional<std::string>>{"zip", "region"};
    auto r = resolve_role_arguments(patients(), qi, std::nullopt, std::string("age"), "search", "patients");
    EXPECT_EQ(r.quasi_identifiers, (std::vector<std::string>{"zip", "region"}));
    EXPECT_EQ(*r.hierarchies, (std::vector<std::optional<std::string>>{"zip", std::nullopt}));
    EXPECT_EQ(r.sensitive, std::optional<std::string>("age"));
    OptionalTexts h = std::vector<std::optional<std::string>>{"zip5", std::nullopt};
    EXPECT_EQ(*resolve_role_arguments(patients(), qi, h, std::nullopt, "search", "patients").hierarchies, *h);
    // no label names a hierarchy of the chosen columns: hierarchies stay omitted
    OptionalTexts plain = std::vector<std::optional<std::string>>{"sex"};
    EXPECT_FALSE(resolve_role_arguments(patients(), plain, std::nullopt, std::nullopt, "audit", "t").hierarchies);
}

TEST(RoleArguments, NothingToTakeIsAnErrorThatSaysWhatToDo) {
    std::vector<LabelledColumn> none = {{"diagnosis", ColumnLabel::parse("sensitive")}};
    try {
        resolve_role_arguments(none, std::nullopt, std::nullopt, std::nullopt, "audit", "t");
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("audit: no quasi-identifiers"), std::string::npos) << e.what();
    }
    auto two = patients();
    two.push_back({"income", ColumnLabel::parse("sensitive")});
    try {
        resolve_role_arguments(two, std::nullopt, std::nullopt, std::nullopt, "audit", "patients");
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("2 columns labelled sensitive (\"diagnosis\", \"income\")"),
                  std::string::npos)
            << e.what();
    }
    OptionalTexts with_null = std::vector<std::optional<std::string>>{std::nullopt};
    EXPECT_THROW(resolve_role_arguments(patients(), with_null, std::nullopt, std::nullopt, "audit", "t"), Error);
}

