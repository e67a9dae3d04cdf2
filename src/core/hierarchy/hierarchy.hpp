// Value generalization hierarchies (docs/hierarchy.md; [LSFB09] §3).
// Level 0 is the original value, level height() is ⊥ (returned as nullopt).
// Every leaf has the same depth, and levels nest, so a node's level is a
// property of the node and "generalize to level l" is well defined.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hierarchy/csv.hpp"

namespace privrisk {

using Value = std::optional<std::string_view>;  // nullopt is ⊥ (SQL NULL)

class Hierarchy {
public:
    explicit Hierarchy(std::string name, int height) : name_(std::move(name)), height_(height) {}
    virtual ~Hierarchy() = default;
    Hierarchy(const Hierarchy&) = delete;
    Hierarchy& operator=(const Hierarchy&) = delete;

    const std::string& name() const { return name_; }
    int height() const { return height_; }

    // The ancestor-or-self of `value` at absolute `level` (⊥ at the height).
    // `value` may be a leaf or an inner node at or below `level`. The result
    // points into the hierarchy or into `scratch`.
    Value generalize(std::string_view value, int level, std::string& scratch) const;

    // Level of a node; an error names the value when it is not in the hierarchy.
    int level_of(std::string_view node) const { return locate(node).level; }

    // `general` is an ancestor-or-self of `specific` (⊥ generalizes everything).
    bool generalizes(Value general, Value specific) const;

    // Comparable in the hierarchy, or either is ⊥ ([LSFB09]).
    bool consistent(Value a, Value b) const;

    // The number of leaves under a node (1 for a leaf), for harmonic sensitivity
    // weights ([LSFB09]; decision H): a tree's own leaves; an interval's integers
    // within [lo, hi]; a date's days; a prefix's 10 per masked character (digit
    // strings). ⊥ is not a node here (its weight is 0 by definition).
    double leaf_count(std::string_view node) const { return leaves_under(node, locate(node)); }

    // The values that generalize to `label` at `level` (0 ≤ level < height), for a
    // release read through an index of the raw column: a tree's leaves under it,
    // and its inner nodes below `level` and the label itself, since generalize()
    // takes those as raw values too; at most `limit` of them. nullopt when there
    // are more, or the kind does not list its values (intervals, prefixes, dates);
    // empty when no value does.
    virtual bool lists_leaves() const { return false; }
    virtual std::optional<std::vector<std::string>> leaves_at(std::string_view label, int level,
                                                              std::size_t limit) const {
        (void)label, (void)level, (void)limit;
        return std::nullopt;
    }

protected:
    struct Node {
        int level;
        long id;  // kind-specific handle (tree node index); -1 when computed
    };
    virtual Node locate(std::string_view node) const = 0;
    // Ancestor of a located node at `level`, with node.level <= level < height.
    virtual std::string_view ancestor(std::string_view node, Node where, int level, std::string& scratch) const = 0;
    virtual double leaves_under(std::string_view node, Node where) const = 0;

    [[noreturn]] void not_in_hierarchy(std::string_view value, const std::string& why = "") const;

private:
    std::string name_;
    int height_;
};

// ARX-style CSV: one record per leaf, `leaf;level1;…;root`. The last column is
// the root ⊥ and holds the same label on every line.
std::unique_ptr<Hierarchy> make_tree_hierarchy(const std::string& name, const std::vector<CsvRecord>& records);

// Numeric intervals aligned at `lo`, one level per width; each width is a
// multiple of the one before, so levels nest. Values must lie in [lo, hi].
std::unique_ptr<Hierarchy> make_interval_hierarchy(const std::string& name, double lo, double hi,
                                                   const std::vector<long>& widths);

// Masks the last `level` characters with '*': 47677 → 4767* → 476** …; level
// max_len is ⊥. Values have at most max_len characters (UTF-8 code points).
std::unique_ptr<Hierarchy> make_prefix_hierarchy(const std::string& name, int max_len);

// ISO dates: YYYY-MM-DD → YYYY-MM → YYYY → ⊥.
std::unique_ptr<Hierarchy> make_date_hierarchy(const std::string& name);

// Limits that keep a hierarchy's catalog rows and lookups sane.
constexpr int kMaxHeight = 64;
constexpr int kMaxPrefixLength = 1024;

}  // namespace privrisk
